package dev.replicapool.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * One HTTP/1.1 request on its own connection (so a Service picks a data plane each time), with the
 * Host header of a pool's route, which java.net.http does not let a caller set.
 */
public final class HostHttp {
  private HostHttp() {}

  public record Reply(int status, Map<String, String> headers, String body) {
    public Optional<String> header(String name) {
      return Optional.ofNullable(headers.get(name.toLowerCase(Locale.ROOT)));
    }
  }

  public static Reply get(InetSocketAddress to, String hostHeader, String path) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(to, 3000);
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("GET " + path + " HTTP/1.1\r\nHost: " + hostHeader + "\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      int end = response.indexOf("\r\n\r\n");
      if (end < 0) {
        throw new IOException("no complete response head: '" + response + "'");
      }
      String[] lines = response.substring(0, end).split("\r\n");
      int status = Integer.parseInt(lines[0].split(" ")[1]);
      Map<String, String> headers = new HashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        headers.put(
            lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
      return new Reply(status, headers, response.substring(end + 4));
    }
  }
}
