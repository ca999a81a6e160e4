package dev.replicapool.controlplane.load;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Reads a serialized {@code xds.data.orca.v3.OrcaLoadReport} (protobuf wire format) without the
 * generated classes: the data plane carries no protobuf runtime for one message of doubles and
 * maps. Fields 1 cpu_utilization, 2 mem_utilization, 6 rps_fractional, 7 eps and 9
 * application_utilization (doubles), 8 named_metrics (map of string to double); 3 rps (deprecated),
 * 4 request_cost, 5 utilization and unknown fields are skipped.
 */
final class OrcaProto {
  private OrcaProto() {}

  /** Reads {@code bytes} into {@code f}; false when they are not a well-formed report. */
  static boolean read(byte[] bytes, LoadReports.Fields f) {
    ByteBuffer in = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    while (in.hasRemaining()) {
      long key = varint(in);
      if (key < 0) {
        return false;
      }
      int field = (int) (key >>> 3);
      int type = (int) (key & 7);
      boolean ok =
          switch (field) {
            case 1 -> type == 1 && f.set("cpu_utilization", fixed64(in));
            case 2 -> type == 1 && f.set("mem_utilization", fixed64(in));
            case 6 -> type == 1 && f.set("rps_fractional", fixed64(in));
            case 7 -> type == 1 && f.set("eps", fixed64(in));
            case 9 -> type == 1 && f.set("application_utilization", fixed64(in));
            case 8 -> type == 2 && namedMetric(in, f);
            default -> skip(in, type);
          };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** One map entry: field 1 the name (string), field 2 the value (double). */
  private static boolean namedMetric(ByteBuffer in, LoadReports.Fields f) {
    ByteBuffer entry = lengthDelimited(in);
    if (entry == null) {
      return false;
    }
    String name = "";
    double value = 0;
    while (entry.hasRemaining()) {
      long key = varint(entry);
      if (key == ((1 << 3) | 2)) {
        ByteBuffer s = lengthDelimited(entry);
        if (s == null) {
          return false;
        }
        name = StandardCharsets.UTF_8.decode(s).toString();
      } else if (key == ((2 << 3) | 1)) {
        value = fixed64(entry);
      } else if (key < 0 || !skip(entry, (int) (key & 7))) {
        return false;
      }
    }
    return !Double.isNaN(value) && f.named(name, value);
  }

  /** A double, or NaN when fewer than 8 bytes are left (refused by the field's check). */
  private static double fixed64(ByteBuffer in) {
    return in.remaining() < 8 ? Double.NaN : in.getDouble();
  }

  /** A base-128 varint, or -1 when it is cut short or longer than 10 bytes. */
  private static long varint(ByteBuffer in) {
    long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!in.hasRemaining()) {
        return -1;
      }
      byte b = in.get();
      v |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return v;
      }
    }
    return -1;
  }

  private static ByteBuffer lengthDelimited(ByteBuffer in) {
    long n = varint(in);
    if (n < 0 || n > in.remaining()) {
      return null;
    }
    ByteBuffer slice = in.slice().order(ByteOrder.LITTLE_ENDIAN).limit((int) n);
    in.position(in.position() + (int) n);
    return slice;
  }

  /** Skips a field of wire type {@code type}; false for a type this message cannot hold. */
  private static boolean skip(ByteBuffer in, int type) {
    switch (type) {
      case 0 -> {
        return varint(in) >= 0;
      }
      case 1 -> {
        if (in.remaining() < 8) {
          return false;
        }
        in.position(in.position() + 8);
        return true;
      }
      case 2 -> {
        return lengthDelimited(in) != null;
      }
      case 5 -> {
        if (in.remaining() < 4) {
          return false;
        }
        in.position(in.position() + 4);
        return true;
      }
      default -> {
        return false;
      }
    }
  }
}
