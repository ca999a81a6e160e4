package dev.replicapool.dataplane.forward;

import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2StreamFrame;

/** HEADERS and DATA frames passed from one stream to the other, client's or member's. */
final class H2Frames {
  private H2Frames() {}

  /**
   * A frame for the other stream: the same content (a DATA frame's buffer moves over with it), no
   * stream of its own yet.
   */
  static Http2StreamFrame copy(Http2StreamFrame f) {
    if (f instanceof Http2DataFrame d) {
      return new DefaultHttp2DataFrame(d.content(), d.isEndStream(), d.padding());
    }
    Http2HeadersFrame h = (Http2HeadersFrame) f;
    return new DefaultHttp2HeadersFrame(h.headers(), h.isEndStream());
  }

  static boolean endsStream(Http2StreamFrame f) {
    return f instanceof Http2DataFrame d ? d.isEndStream() : ((Http2HeadersFrame) f).isEndStream();
  }
}
