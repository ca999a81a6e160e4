#!/usr/bin/env python3
"""Writes a one-layer OCI image archive (what `ctr images import` reads) from files on this
machine, for the cluster's own images (pause, CoreDNS) that no registry is asked for.

  oci-image.py OUT.tar NAME ENTRYPOINT SRC=DEST[:MODE]...

NAME is the full reference containerd stores (docker.io/library/x:tag); ENTRYPOINT is a JSON
array or one path.
"""
import hashlib
import io
import json
import os
import sys
import tarfile


def blob(data):
    return "sha256:" + hashlib.sha256(data).hexdigest(), len(data)


def layer_of(files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        dirs = set()
        for src, dest, mode in files:
            parts = dest.strip("/").split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i])
                if d not in dirs:
                    dirs.add(d)
                    info = tarfile.TarInfo(d)
                    info.type, info.mode = tarfile.DIRTYPE, 0o755
                    tar.addfile(info)
            with open(src, "rb") as f:
                data = f.read()
            info = tarfile.TarInfo(dest.strip("/"))
            info.size, info.mode = len(data), mode
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def main(out, name, entrypoint, specs):
    files = []
    for spec in specs:
        src, rest = spec.split("=", 1)
        dest, _, mode = rest.partition(":")
        files.append((src, dest, int(mode or "755", 8)))
    layer = layer_of(files)
    layer_digest, layer_size = blob(layer)
    entry = json.loads(entrypoint) if entrypoint.startswith("[") else [entrypoint]
    config = json.dumps(
        {
            "architecture": "amd64",
            "os": "linux",
            # Control-plane images run as root, as upstream's do (they read root-only keys):
            # OCI_IMAGE_USER=0:0 says so; everything else stays non-root.
            "config": {"Entrypoint": entry, "User": os.environ.get("OCI_IMAGE_USER", "65532:65532"),
                       "Env": ["PATH=/usr/local/bin:/usr/bin:/bin"]},
            "rootfs": {"type": "layers", "diff_ids": [layer_digest]},
        }
    ).encode()
    config_digest, config_size = blob(config)
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": config_digest,
                "size": config_size,
            },
            "layers": [
                {
                    "mediaType": "application/vnd.oci.image.layer.v1.tar",
                    "digest": layer_digest,
                    "size": layer_size,
                }
            ],
        }
    ).encode()
    manifest_digest, manifest_size = blob(manifest)
    index = json.dumps(
        {
            "schemaVersion": 2,
            "manifests": [
                {
                    "mediaType": "application/vnd.oci.image.manifest.v1+json",
                    "digest": manifest_digest,
                    "size": manifest_size,
                    "platform": {"architecture": "amd64", "os": "linux"},
                    "annotations": {
                        "io.containerd.image.name": name,
                        "org.opencontainers.image.ref.name": name.rsplit(":", 1)[1],
                    },
                }
            ],
        }
    ).encode()
    with tarfile.open(out, "w") as tar:
        entries = [("oci-layout", b'{"imageLayoutVersion":"1.0.0"}'), ("index.json", index)]
        for data in (layer, config, manifest):
            entries.append(("blobs/sha256/" + blob(data)[0][7:], data))
        for path, data in entries:
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:])
