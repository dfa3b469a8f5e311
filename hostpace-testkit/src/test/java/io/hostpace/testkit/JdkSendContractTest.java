package io.hostpace.testkit;

import io.hostpace.Hostpace;

/** The contract against {@code PacedHttpClient.send} on a thread of its own, cancelled by interrupt. */
class JdkSendContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return JdkClients.blocking(engine);
  }
}
