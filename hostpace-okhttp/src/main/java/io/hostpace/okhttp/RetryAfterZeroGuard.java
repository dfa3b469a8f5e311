package io.hostpace.okhttp;

import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * The network half of {@link HostpaceInterceptor#pace}: keeps OkHttp from repeating a refusal
 * by itself (SPEC I7). OkHttp sends a {@code 503} whose {@code Retry-After} is a whole number of
 * seconds equal to 0 again at once, inside one {@code proceed} of the application interceptor,
 * where the engine neither counts nor spaces it. On the way up, this interceptor sets such a
 * response's {@code Retry-After} aside under {@link #SET_ASIDE}, where OkHttp does not look, and
 * {@link #restore} puts it back before the engine or the caller sees the response. Only incoming
 * responses are touched, never a request.
 */
final class RetryAfterZeroGuard implements Interceptor {

  /** Where a {@code Retry-After} of 0 waits while OkHttp judges the response. */
  static final String SET_ASIDE = "Hostpace-Retry-After";

  static final RetryAfterZeroGuard INSTANCE = new RetryAfterZeroGuard();

  private RetryAfterZeroGuard() {}

  @Override
  public Response intercept(Chain chain) throws IOException {
    Response response = chain.proceed(chain.request());
    String retryAfter = response.header("Retry-After");
    if (response.code() != 503 || retryAfter == null || !isZeroSeconds(retryAfter)) {
      return response;
    }
    return response.newBuilder().removeHeader("Retry-After").header(SET_ASIDE, retryAfter).build();
  }

  /** {@code response} with its {@code Retry-After} back where the guard set it aside, if it did. */
  static Response restore(Response response) {
    @Nullable String setAside = response.header(SET_ASIDE);
    if (setAside == null) {
      return response;
    }
    return response.newBuilder().removeHeader(SET_ASIDE).header("Retry-After", setAside).build();
  }

  /** What OkHttp repeats: digits only, and their value 0 ("0", "00"). */
  private static boolean isZeroSeconds(String value) {
    return !value.isEmpty() && value.chars().allMatch(c -> c == '0');
  }

  @Override
  public String toString() {
    return "Hostpace's guard against OkHttp repeating a 503 with Retry-After: 0";
  }
}
