package io.hostpace.httpclient5;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;

/**
 * A classic response's entity held to its attempt's {@link AnswerDeadline} (SPEC T7): its content
 * tells the deadline when the body has ended (read to its end, or closed), and once the deadline
 * has passed, every read raises the deadline's {@code SocketTimeoutException}, whatever the dropped
 * connection made the read raise.
 */
final class DeadlineEntity extends HttpEntityWrapper {

  private final AnswerDeadline deadline;

  DeadlineEntity(HttpEntity entity, AnswerDeadline deadline) {
    super(entity);
    this.deadline = deadline;
  }

  @Override
  public InputStream getContent() throws IOException {
    return new Content(super.getContent(), deadline);
  }

  /** Through {@link #getContent()}, so that writing the body out is held to the deadline as reading it is. */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    try (InputStream in = getContent()) {
      in.transferTo(out);
    }
  }

  /** The body as the caller reads it. */
  private static final class Content extends FilterInputStream {
    private final AnswerDeadline deadline;

    Content(InputStream in, AnswerDeadline deadline) {
      super(in);
      this.deadline = deadline;
    }

    @Override
    public int read() throws IOException {
      check();
      try {
        return ended(super.read());
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      check();
      try {
        return ended(super.read(b, off, len));
      } catch (IOException e) {
        throw translated(e);
      }
    }

    @Override
    public void close() throws IOException {
      try {
        super.close();
      } catch (IOException e) {
        throw translated(e);
      } finally {
        deadline.over();
      }
    }

    private void check() throws IOException {
      if (deadline.expired()) {
        throw deadline.failure(null);
      }
    }

    /** The read's result; an end that the dropped connection made is no end but the timeout. */
    private int ended(int read) throws IOException {
      if (read < 0) {
        check();
        deadline.over();
      }
      return read;
    }

    private IOException translated(IOException e) {
      deadline.over();
      return deadline.expired() ? deadline.failure(e) : e;
    }
  }
}
