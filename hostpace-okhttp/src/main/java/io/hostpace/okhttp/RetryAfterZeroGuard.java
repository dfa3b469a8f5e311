package io.hostpace.okhttp;

import java.io.IOException;
import okhttp3.Interceptor;
import okhttp3.Response;
import org.jspecify.annotations.Nullable;

/**
 * The network half of {@link HostpaceInterceptor#pace}: keeps OkHttp from repeating a refusal
 * by itself (SPEC I7), and from failing on a {@code Retry-After} it cannot read. OkHttp sends a
 * {@code 503} whose {@code Retry-After} is a whole number of seconds equal to 0 again at once,
 * inside one {@code proceed} of the application interceptor, where the engine neither counts nor
 * spaces it; and it reads the digits of a {@code 503}'s or a {@code 408}'s {@code Retry-After} as
 * an {@code int}, so that a number beyond one ({@code 99999999999}) fails the call with a
 * {@code NumberFormatException}. On the way up, this interceptor sets such a response's
 * {@code Retry-After} aside under {@link #SET_ASIDE}, where OkHttp does not look (a {@code 408}'s
 * too large number stands in as {@link Integer#MAX_VALUE}: without one, OkHttp would repeat the
 * {@code 408}), and {@link #restore} puts it back before the engine or the caller sees the
 * response. Only incoming responses are touched, never a request.
 */
final class RetryAfterZeroGuard implements Interceptor {

  /** Where a {@code Retry-After} of 0, or of more seconds than an {@code int} holds, waits while OkHttp judges the response. */
  static final String SET_ASIDE = "Hostpace-Retry-After";

  static final RetryAfterZeroGuard INSTANCE = new RetryAfterZeroGuard();

  private RetryAfterZeroGuard() {}

  @Override
  public Response intercept(Chain chain) throws IOException {
    Response response = chain.proceed(chain.request());
    String retryAfter = response.header("Retry-After");
    if (retryAfter == null || !isDigits(retryAfter)) {
      return response;
    }
    boolean beyondInt = !fitsInt(retryAfter);
    if (response.code() == 503 && (beyondInt || isZeroSeconds(retryAfter))) {
      return response.newBuilder().removeHeader("Retry-After").header(SET_ASIDE, retryAfter).build();
    }
    if (response.code() == 408 && beyondInt) {
      return response.newBuilder().header("Retry-After", String.valueOf(Integer.MAX_VALUE)).header(SET_ASIDE, retryAfter).build();
    }
    return response;
  }

  /** {@code response} with its {@code Retry-After} back where the guard set it aside, if it did. */
  static Response restore(Response response) {
    @Nullable String setAside = response.header(SET_ASIDE);
    if (setAside == null) {
      return response;
    }
    return response.newBuilder().removeHeader(SET_ASIDE).header("Retry-After", setAside).build();
  }

  /** What OkHttp reads as a number of seconds: ASCII digits only. */
  private static boolean isDigits(String value) {
    return !value.isEmpty() && value.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  /** What OkHttp repeats: digits whose value is 0 ("0", "00"). */
  private static boolean isZeroSeconds(String digits) {
    return digits.chars().allMatch(c -> c == '0');
  }

  /** Whether OkHttp's {@code Integer.valueOf} reads {@code digits}. */
  private static boolean fitsInt(String digits) {
    String significant = digits.replaceFirst("^0+(?=.)", "");
    return significant.length() < 10
        || significant.length() == 10 && significant.compareTo(String.valueOf(Integer.MAX_VALUE)) <= 0;
  }

  @Override
  public String toString() {
    return "Hostpace's guard against OkHttp repeating a 503 with Retry-After: 0 or failing on a Retry-After beyond an int";
  }
}
