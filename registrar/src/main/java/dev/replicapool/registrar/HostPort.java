package dev.replicapool.registrar;

/**
 * A {@code host:port} address as members advertise it: a host name, an IPv4 address or a bracketed
 * IPv6 address ({@code [::1]:8080}), and a port from 1 to 65535.
 */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be between 1 and 65535, got " + port);
    }
  }

  /** Parses {@code host:port}; the message of the exception says what is wrong. */
  public static HostPort parse(String address) {
    if (address == null || address.isBlank()) {
      throw new IllegalArgumentException("address must be host:port, got nothing");
    }
    String text = address.trim();
    String host;
    String port;
    if (text.startsWith("[")) {
      int close = text.indexOf("]:");
      if (close < 0) {
        throw new IllegalArgumentException(
            "address must be host:port ([v6-address]:port for IPv6), got '" + address + "'");
      }
      host = text.substring(1, close);
      port = text.substring(close + 2);
    } else {
      int colon = text.lastIndexOf(':');
      if (colon <= 0 || text.indexOf(':') != colon) {
        throw new IllegalArgumentException(
            "address must be host:port ([v6-address]:port for IPv6), got '" + address + "'");
      }
      host = text.substring(0, colon);
      port = text.substring(colon + 1);
    }
    if (host.isBlank() || host.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("address has no usable host: '" + address + "'");
    }
    int portNumber;
    try {
      portNumber = Integer.parseInt(port);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("address has no numeric port: '" + address + "'");
    }
    return new HostPort(host, portNumber);
  }

  /** The unspecified addresses a server may bind to but a client cannot dial. */
  public boolean isWildcard() {
    return host.equals("0.0.0.0") || host.equals("::") || host.equals("0:0:0:0:0:0:0:0");
  }

  @Override
  public String toString() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
