package io.hostpace.jdk;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

/**
 * The contract against {@code PacedHttpClient.sendAsync} sending each attempt on a pooled thread,
 * as it does where the JDK's {@code sendAsync} would start a thread for each answer: the scenarios
 * can be met there too, cancelling (SPEC T5) and failures (SPEC T6) among them.
 */
class JdkPooledSendAsyncContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return JdkClients.asyncPooled(engine);
  }
}
