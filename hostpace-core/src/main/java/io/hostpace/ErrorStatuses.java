package io.hostpace;

import java.util.Objects;
import java.util.Set;

/** The check of settings that name HTTP statuses only an error may have: refusals, retries. */
final class ErrorStatuses {

  private ErrorStatuses() {}

  /**
   * Refuses a null in {@code statuses}, naming the {@code parameter}, and a status that is not an
   * error, 400 to 599, naming {@code what} and the status
   * ({@code "retry status must be an error, 400 to 599, got 200"}): an answer that succeeded,
   * or that points elsewhere, is neither refused nor sent again.
   */
  static void check(Set<Integer> statuses, String parameter, String what) {
    for (Integer status : statuses) {
      Objects.requireNonNull(status, parameter + " must not contain null");
      if (status < 400 || status > 599) {
        throw new IllegalArgumentException(what + " must be an error, 400 to 599, got " + status);
      }
    }
  }
}
