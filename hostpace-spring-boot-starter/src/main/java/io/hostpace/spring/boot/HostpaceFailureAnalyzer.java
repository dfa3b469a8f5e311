package io.hostpace.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Shows a {@link HostpacePropertyException} that stopped the application as Boot shows a bad
 * property: a description that names the key and what is wrong, and what to do.
 */
class HostpaceFailureAnalyzer extends AbstractFailureAnalyzer<HostpacePropertyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, HostpacePropertyException cause) {
    return new FailureAnalysis(String.valueOf(cause.getMessage()), cause.action(), cause);
  }
}
