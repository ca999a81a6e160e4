package dev.replicapool.dataplane.accesslog;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The data plane's access-log flags: where lines go ({@code stdout} or a file path; null: no access
 * log) and how they are written.
 */
public record AccessLogConfig(String target, AccessLog.Options options) {
  public static final int DEFAULT_QUEUE = 8192;

  public static final AccessLogConfig OFF =
      new AccessLogConfig(null, new AccessLog.Options(AccessLogFormat.JSON, false, false, 1));

  /** The access log these flags ask for: {@link AccessLog#OFF} without a target. */
  public AccessLog open() throws IOException {
    if (target == null) {
      return AccessLog.OFF;
    }
    AccessLog.Sink sink =
        target.equals("stdout") ? AccessLog.stdout() : AccessLog.file(Path.of(target));
    return new AccessLog(options, sink, System::currentTimeMillis);
  }
}
