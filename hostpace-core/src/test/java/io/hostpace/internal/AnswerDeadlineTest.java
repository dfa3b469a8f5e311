package io.hostpace.internal;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.VirtualTime;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * SPEC T7: an answer's body read through its deadline, in virtual time. The deadline is 2 s after
 * the attempt was sent at 0 s; its expiry drops the {@link Connection} the body comes on.
 */
class AnswerDeadlineTest {

  static final String TIMED_OUT =
      "GET https://example.org/: the answer was not read whole within its answer timeout of PT2S";

  final VirtualTime time = VirtualTime.create();
  final long sentAt = time.nanoTime();
  final Connection connection = new Connection("abcdef");
  final AnswerDeadline deadline = AnswerDeadline.start(
      "GET https://example.org/", Duration.ofSeconds(2), sentAt, time, time, connection::drop);

  @Test
  void T7_aReadBeforeTheDeadlineGetsBytesAndTheBodysEndFreesTheTimer() throws IOException {
    InputStream body = deadline.body(connection);
    time.advance(Duration.ofSeconds(1));
    assertThat(body.read()).isEqualTo('a');                             // at 1 s
    assertThat(new String(body.readAllBytes(), US_ASCII)).isEqualTo("bcdef"); // to the end

    assertTheTimerIsFreed();
  }

  @Test
  void T7_closingTheBodyBeforeTheDeadlineFreesTheTimer() throws IOException {
    InputStream body = deadline.body(connection);
    assertThat(body.read()).isEqualTo('a');
    body.close();                                                        // at 0 s, one byte read

    assertThat(connection.closed).isTrue();
    assertTheTimerIsFreed();
  }

  @Test
  void T7_atTheDeadlineTheExpiryDropsTheConnectionAndTheNextReadFailsWithTheTimeout() throws IOException {
    InputStream body = deadline.body(connection);
    assertThat(body.read()).isEqualTo('a');                             // at 0 s
    time.advance(Duration.ofSeconds(2));                                 // at 2 s the deadline passes

    assertThat(connection.dropped).isTrue();
    assertThat(deadline.expired()).isTrue();
    assertThatThrownBy(body::read)
        .isExactlyInstanceOf(SocketTimeoutException.class)
        .hasMessage(TIMED_OUT)
        .hasNoCause();
    assertThatThrownBy(() -> body.read(new byte[4], 0, 4)).isExactlyInstanceOf(SocketTimeoutException.class);
  }

  @Test
  void T7_aReadUnderWayWhenTheDeadlinePassesFailsWithTheTimeoutCausedByWhatTheDropGaveIt() {
    InputStream body = deadline.body(connection);
    connection.stallUntil(time, Duration.ofSeconds(3));                 // the next read blocks past 2 s

    assertThatThrownBy(body::read)
        .isExactlyInstanceOf(SocketTimeoutException.class)
        .hasMessage(TIMED_OUT)
        .cause().hasMessage("Socket closed");
    assertThat(connection.dropped).isTrue();
  }

  @Test
  void T7_anEndThatTheDropMadeIsNoEndButTheTimeout() {
    InputStream body = deadline.body(connection);
    connection.endsWhenDropped = true;
    connection.stallUntil(time, Duration.ofSeconds(3));

    assertThatThrownBy(body::read).isExactlyInstanceOf(SocketTimeoutException.class).hasMessage(TIMED_OUT);
  }

  @Test
  void T7_aFailureBeforeTheDeadlineIsTheClientsOwnAndEndsTheDeadline() {
    InputStream body = deadline.body(connection);
    connection.failNext = new IOException("Connection reset");

    assertThatThrownBy(body::read).isSameAs(connection.failNext);
    assertTheTimerIsFreed();
  }

  @Test
  void T7_aDeadlineThatPassedBeforeItStartedSaysSoAndItsCallerEndsTheAnswer() {
    assertThat(deadline.passed()).isFalse();
    Connection slow = new Connection("abc");
    time.advance(Duration.ofSeconds(3));                                 // its headers came at 3 s
    AnswerDeadline late = AnswerDeadline.start(
        "GET https://example.org/", Duration.ofSeconds(2), sentAt, time, time, slow::drop);

    assertThat(late.passed()).isTrue();
    late.over();
    time.advance(Duration.ofSeconds(1));
    assertThat(slow.dropped).isFalse();
    assertThat(late.expired()).isFalse();
    assertThat(late.failure(null)).hasMessage(TIMED_OUT);
  }

  @Test
  void T7_noDeadlineNeverExpiresAndHoldsNoTimer() throws IOException {
    VirtualTime idle = VirtualTime.create();
    InputStream body = AnswerDeadline.none().body(new ByteArrayInputStream(new byte[] {1, 2}));
    idle.advance(Duration.ofDays(1));

    assertThat(body.readAllBytes()).containsExactly(1, 2);
    assertThat(AnswerDeadline.none().expired()).isFalse();
    assertThat(idle.pendingTasks()).isZero();
  }

  /** The deadline's timer holds no task, and at 5 s, past the deadline, nothing was dropped. */
  private void assertTheTimerIsFreed() {
    assertThat(time.pendingTasks()).isZero();
    time.advance(Duration.ofSeconds(5));
    assertThat(connection.dropped).isFalse();
    assertThat(deadline.expired()).isFalse();
  }

  /**
   * A body on a connection: bytes until they run out; once dropped, reads fail as a closed socket's
   * do (or end, when {@link #endsWhenDropped}). A stalled read moves virtual time on, as if the
   * read were blocked while the timer ran.
   */
  static final class Connection extends InputStream {
    private final byte[] bytes;
    private int next;
    boolean dropped;
    boolean closed;
    boolean endsWhenDropped;
    IOException failNext;
    private VirtualTime stallTime;
    private Duration stall;

    Connection(String body) {
      this.bytes = body.getBytes(US_ASCII);
    }

    void drop() {
      dropped = true;
    }

    void stallUntil(VirtualTime time, Duration duration) {
      this.stallTime = time;
      this.stall = duration;
    }

    @Override
    public int read() throws IOException {
      if (stallTime != null) {
        VirtualTime time = stallTime;
        stallTime = null;
        time.advance(stall);
      }
      if (failNext != null) {
        throw failNext;
      }
      if (dropped) {
        if (endsWhenDropped) {
          return -1;
        }
        throw new IOException("Socket closed");
      }
      return next < bytes.length ? bytes[next++] : -1;
    }

    @Override
    public void close() {
      closed = true;
    }
  }
}
