package io.hostpace.testkit;

import io.hostpace.Hostpace;

/** The contract against {@code PacedHttpClient.sendAsync}: the scenarios can be met. */
class JdkSendAsyncContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return JdkClients.async(engine);
  }
}
