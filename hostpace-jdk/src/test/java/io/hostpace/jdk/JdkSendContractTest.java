package io.hostpace.jdk;

import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

import io.hostpace.Hostpace;

/** The contract against {@code PacedHttpClient.send} on a thread of its own, cancelled by interrupt. */
class JdkSendContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return JdkClients.blocking(engine);
  }
}
