package io.hostpace.httpclient5;

import io.hostpace.internal.AnswerDeadline;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.HttpEntityWrapper;

/**
 * A classic response's entity held to its attempt's {@link AnswerDeadline} (SPEC T7): its content
 * is read through {@link AnswerDeadline#body}, which tells the deadline when the body has ended
 * (read to its end, or closed), and once the deadline has passed, makes every read raise the
 * deadline's {@code SocketTimeoutException}, whatever the dropped connection made the read raise.
 */
final class DeadlineEntity extends HttpEntityWrapper {

  private final AnswerDeadline deadline;

  DeadlineEntity(HttpEntity entity, AnswerDeadline deadline) {
    super(entity);
    this.deadline = deadline;
  }

  @Override
  public InputStream getContent() throws IOException {
    return deadline.body(super.getContent());
  }

  /** Through {@link #getContent()}, so that writing the body out is held to the deadline as reading it is. */
  @Override
  public void writeTo(OutputStream out) throws IOException {
    try (InputStream in = getContent()) {
      in.transferTo(out);
    }
  }
}
