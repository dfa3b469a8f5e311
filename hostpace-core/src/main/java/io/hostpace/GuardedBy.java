package io.hostpace;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The lock that guards a field or method: read and written only while it is held. Error Prone's
 * GuardedBy check reads an annotation of this name, so the build checks what this says without
 * core depending on Error Prone's annotations.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.METHOD})
@interface GuardedBy {
  /** The lock, as an expression: {@code "lock"}, {@code "this"}. */
  String value();
}
