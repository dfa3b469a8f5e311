package io.hostpace.jdk;

import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

import io.hostpace.Hostpace;

/** The contract against {@code PacedHttpClient.sendAsync}: the scenarios can be met. */
class JdkSendAsyncContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return JdkClients.async(engine);
  }
}
