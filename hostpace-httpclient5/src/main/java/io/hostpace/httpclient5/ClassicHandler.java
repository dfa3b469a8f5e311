package io.hostpace.httpclient5;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.internal.AnswerDeadline;
import io.hostpace.spi.Exchange;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import org.apache.hc.client5.http.classic.ExecChain;
import org.apache.hc.client5.http.classic.ExecChainHandler;
import org.apache.hc.client5.http.classic.ExecRuntime;
import org.apache.hc.client5.http.impl.classic.RequestFailedException;
import org.apache.hc.core5.concurrent.Cancellable;
import org.apache.hc.core5.concurrent.CancellableDependency;
import org.apache.hc.core5.concurrent.ComplexCancellable;
import org.apache.hc.core5.http.ClassicHttpRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.HttpException;
import org.apache.hc.core5.http.ProtocolException;
import org.apache.hc.core5.http.io.support.ClassicRequestBuilder;
import org.jspecify.annotations.Nullable;

/**
 * The classic client's handler: each call goes through the engine, each attempt is
 * {@code chain.proceed} on the calling thread. The rest of the chain (redirects, the client's own
 * I/O retries, the connection) is below it, inside one attempt.
 *
 * <p>The call goes to {@link Hostpace#send(Exchange, CallContext, java.util.function.Consumer)}:
 * the request's own cancel ({@code HttpUriRequestBase.cancel()}) interrupts no thread, so it is
 * handed the engine's cancel action. The engine keeps an attempt's {@link HttpException}, which is
 * not an {@code IOException}, as the cause of one; the handler throws it again as it is.
 */
record ClassicHandler(Hostpace engine, CallContext context) implements ExecChainHandler {

  @Override
  public ClassicHttpResponse execute(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain)
      throws IOException, HttpException {
    Attempts attempts = new Attempts(request, scope, chain, engine);
    try {
      return engine.send(attempts, HostpaceHttpClient5.callContext(scope.clientContext, context), attempts::onCancel);
    } catch (InterruptedIOException e) {
      if (e.getCause() instanceof CancellationException) {
        throw new RequestFailedException("Request aborted"); // the engine's cancel: as the client's own aborted requests fail
      }
      throw e; // the attempt's own: a SocketTimeoutException, HttpClient's RequestFailedException
    } catch (IOException e) {
      HttpException protocolFailure = attempts.protocolFailure;
      if (protocolFailure != null && e.getCause() == protocolFailure) {
        throw protocolFailure; // the attempt's own, as it is
      }
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestFailedException("Request aborted", e);
    }
  }

  @Override
  public String toString() {
    return "Hostpace classic exec handler";
  }

  /**
   * The call's attempts, each {@code chain.proceed} on the calling thread, its outcome a completed
   * future; the client's cancel reaches the engine while the call waits in its queue.
   */
  private static final class Attempts extends PacedAttempts<ClassicHttpRequest, ClassicHttpResponse> {
    private final ExecChain.Scope scope;
    private final ExecChain chain;
    private @Nullable Cancellable cancelWait;
    /**
     * The current attempt's runtime: the call's, forked with a cancellable of the attempt's own, so
     * that ending the attempt ({@link #abort}) cancels it and not the caller's request, which the
     * caller may execute again. The caller's cancel reaches it through the request's dependency.
     */
    private volatile ExecRuntime attemptRuntime;
    /** The current attempt's cancellable, which its runtime's connection lease, connect and exchange hang on. */
    private volatile @Nullable ComplexCancellable attemptCancel;
    /** The HttpException an attempt failed with: the engine hands it back as an IOException's cause. */
    volatile @Nullable HttpException protocolFailure;

    Attempts(ClassicHttpRequest request, ExecChain.Scope scope, ExecChain chain, Hostpace engine) throws ProtocolException {
      super(request, scope.route, scope.clientContext, engine, canResend(request.getEntity()));
      this.scope = scope;
      this.chain = chain;
      this.attemptRuntime = scope.execRuntime;
    }

    private static boolean canResend(@Nullable HttpEntity entity) {
      return entity == null || entity.isRepeatable();
    }

    /**
     * Makes the request's own cancel ({@code HttpUriRequestBase.cancel()}) cancel the call while it
     * waits. While an attempt is sent, the attempt's own cancellable takes the request's dependency
     * over (see {@link #send}), and so its cancel aborts the exchange; after a refusal, the wait for
     * the next attempt takes it back (see {@link #discard}).
     */
    void onCancel(Runnable cancel) {
      cancelWait = () -> {
        cancel.run();
        return true;
      };
      waitCancellably();
    }

    private void waitCancellably() {
      if (scope.originalRequest instanceof CancellableDependency dependency && cancelWait != null) {
        dependency.setDependency(cancelWait); // runs cancelWait at once if the request is already cancelled
      }
    }

    @Override
    ClassicHttpResponse answer(ClassicHttpResponse response) {
      return response;
    }

    @Override
    public CompletableFuture<ClassicHttpResponse> send() {
      // A copy per attempt, as the client's own retries make: the chain below adds headers to what it is given.
      ClassicHttpRequest attempt = ClassicRequestBuilder.copy(request).build();
      ComplexCancellable cancellable = new ComplexCancellable();
      ExecRuntime runtime = scope.execRuntime.fork(cancellable);
      attemptCancel = cancellable;
      attemptRuntime = runtime;
      if (scope.originalRequest instanceof CancellableDependency dependency) {
        dependency.setDependency(cancellable); // the caller's cancel ends the attempt; cancels it at once if already cancelled
      }
      ExecChain.Scope below = new ExecChain.Scope(scope.exchangeId, scope.route, scope.originalRequest, runtime, scope.clientContext);
      AnswerDeadline deadline = sending(attempt, runtime::discardEndpoint);
      ConnectionWatch.forget(scope.clientContext);
      try {
        ClassicHttpResponse response = chain.proceed(attempt, below);
        HttpEntity entity = response.getEntity();
        if (entity == null) {
          deadline.over();
        } else {
          response.setEntity(new DeadlineEntity(entity, deadline));
        }
        return CompletableFuture.completedFuture(response);
      } catch (HttpException e) {
        deadline.over();
        protocolFailure = e;
        return CompletableFuture.failedFuture(e);
      } catch (IOException e) {
        return CompletableFuture.failedFuture(deadline.translated(e));
      } catch (RuntimeException | Error e) {
        deadline.over();
        return CompletableFuture.failedFuture(e);
      }
    }

    /**
     * True when the request's method is idempotent, and the attempt went out on a connection that
     * came open from the pool and the client failed with its {@code NoHttpResponseException}, the
     * connection's end before any byte of the answer: the server had most likely closed it idle
     * before it read the request (SPEC T6). Known only where {@link HostpaceHttpClient5#pace} put the
     * {@link ConnectionWatch} in the chain.
     */
    @Override
    public boolean diedBeforeAnswer(Throwable failure) {
      return ConnectionWatch.diedBeforeAnswer(scope.clientContext, request.getMethod(), failure);
    }

    /**
     * Cancels the attempt in progress, which aborts its connection lease, connect or exchange and
     * keeps the client's own I/O retries, if a strategy of the caller's brings them back, from
     * sending it again. The caller's request itself is left as it was: it can be executed again,
     * as after the client's own response timeout.
     */
    @Override
    public boolean abort() {
      ComplexCancellable cancellable = attemptCancel;
      return cancellable != null && cancellable.cancel();
    }

    /**
     * Lets a refusal go before the next attempt. Its body is read, so that its connection can go
     * back to the pool, only when all of it is here already: a {@code Content-Length} within
     * {@link HostpaceHttpClient5#DISCARDED_BODY_LIMIT} whose bytes the client has buffered. Any
     * other (longer, still coming, chunked, of no length) would have the next attempt wait on the
     * server, without end if it stalls and no timeout is set, so its connection is closed instead,
     * unread, and the next attempt goes on another. The classic client tells no more than what it
     * has buffered ({@code available()}) without blocking.
     */
    @Override
    public void discard(ClassicHttpResponse response) {
      HttpEntity entity = response.getEntity();
      if (entity != null) {
        try (InputStream in = entity.getContent()) {
          if (!readIfHere(in, entity.getContentLength())) {
            attemptRuntime.discardEndpoint(); // before the close, which would read the rest to keep the connection
          }
        } catch (IOException e) {
          attemptRuntime.discardEndpoint();
        }
      }
      try {
        response.close();
      } catch (IOException e) {
        // nothing left to let go
      }
      waitCancellably();
    }

    /**
     * Reads {@code in}, a body of {@code length} bytes (-1 for unknown), to its end when all of it
     * is buffered and within the limit; false, with what is left unread, otherwise. Its end,
     * read at its length without a wait, lets the client put the connection back in the pool.
     */
    private static boolean readIfHere(InputStream in, long length) throws IOException {
      if (length < 0 || length > HostpaceHttpClient5.DISCARDED_BODY_LIMIT) {
        return false;
      }
      byte[] buffer = new byte[8192];
      long left = length;
      while (left > 0) {
        int here = in.available();
        if (here <= 0) {
          return false; // the rest has not come yet: reading it would wait on the server
        }
        int read = in.read(buffer, 0, (int) Math.min(Math.min(here, buffer.length), left));
        if (read < 0) {
          return false;
        }
        left -= read;
      }
      return in.read() < 0;
    }
  }
}
