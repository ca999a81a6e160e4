package dev.replicapool.operator.probing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throwaway CA with a server certificate (tracking.internal, 127.0.0.1) and a client certificate
 * signed by it, made with the openssl command line; a second CA that signed neither.
 */
public final class TestCertificates {
  public final Path dir;
  public final Path caCert;
  public final Path serverCert;
  public final Path serverKey;
  public final Path clientCert;
  public final Path clientKey;
  public final Path otherCaCert;

  public TestCertificates(Path dir) throws IOException, InterruptedException {
    this.dir = dir;
    caCert = dir.resolve("ca.crt");
    serverCert = dir.resolve("server.crt");
    serverKey = dir.resolve("server.key");
    clientCert = dir.resolve("client.crt");
    clientKey = dir.resolve("client.key");
    otherCaCert = dir.resolve("other-ca.crt");
    ca("ca", caCert);
    ca("other-ca", otherCaCert);
    leaf("server", "subjectAltName=DNS:tracking.internal,IP:127.0.0.1");
    leaf("client", "extendedKeyUsage=clientAuth");
  }

  public String pem(Path p) throws IOException {
    return Files.readString(p);
  }

  private void ca(String name, Path cert) throws IOException, InterruptedException {
    openssl(
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        dir.resolve(name + ".key").toString(),
        "-out",
        cert.toString(),
        "-days",
        "2",
        "-subj",
        "/CN=" + name);
  }

  private void leaf(String name, String extension) throws IOException, InterruptedException {
    Path key = dir.resolve(name + ".key");
    Path csr = dir.resolve(name + ".csr");
    Path ext = dir.resolve(name + ".ext");
    Files.writeString(ext, extension + "\n");
    keyAndRequest(name, key, csr);
    openssl(
        "x509",
        "-req",
        "-in",
        csr.toString(),
        "-CA",
        caCert.toString(),
        "-CAkey",
        dir.resolve("ca.key").toString(),
        "-CAcreateserial",
        "-out",
        dir.resolve(name + ".crt").toString(),
        "-days",
        "2",
        "-extfile",
        ext.toString());
  }

  /**
   * A server certificate for tracking.internal and 127.0.0.1, signed by {@link #caCert}, that
   * expired in 2020: its key is {@link #serverKey}'s sibling "expired.key". Made on demand with
   * {@code openssl ca}, the one openssl 3.0 command that takes a validity in the past.
   */
  public Path expiredServerCert() throws IOException, InterruptedException {
    Path cert = dir.resolve("expired.crt");
    Path key = dir.resolve("expired.key");
    Path csr = dir.resolve("expired.csr");
    Path ext = dir.resolve("expired.ext");
    Path conf = dir.resolve("expired-ca.conf");
    Files.writeString(ext, "subjectAltName=DNS:tracking.internal,IP:127.0.0.1\n");
    Files.writeString(dir.resolve("index.txt"), "");
    Files.writeString(dir.resolve("serial"), "1000\n");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "[ca]",
            "default_ca = test",
            "[test]",
            "database = " + dir.resolve("index.txt"),
            "new_certs_dir = " + dir,
            "serial = " + dir.resolve("serial"),
            "default_md = sha256",
            "policy = any",
            "[any]",
            "commonName = supplied",
            ""));
    keyAndRequest("expired", key, csr);
    openssl(
        "ca",
        "-batch",
        "-notext",
        "-config",
        conf.toString(),
        "-cert",
        caCert.toString(),
        "-keyfile",
        dir.resolve("ca.key").toString(),
        "-in",
        csr.toString(),
        "-out",
        cert.toString(),
        "-startdate",
        "20200101000000Z",
        "-enddate",
        "20200102000000Z",
        "-extfile",
        ext.toString());
    return cert;
  }

  /** A P-256 key (PKCS#8, "BEGIN PRIVATE KEY", which every consumer here reads) and its CSR. */
  private void keyAndRequest(String name, Path key, Path csr)
      throws IOException, InterruptedException {
    openssl(
        "req",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-keyout",
        key.toString(),
        "-out",
        csr.toString(),
        "-subj",
        "/CN=" + name);
    Path pk8 = dir.resolve(name + ".pk8");
    openssl("pkcs8", "-topk8", "-nocrypt", "-in", key.toString(), "-out", pk8.toString());
    Files.move(pk8, key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
  }

  private static void openssl(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
    }
  }
}
