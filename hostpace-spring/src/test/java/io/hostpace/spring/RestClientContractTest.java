package io.hostpace.spring;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

/** The shared scenarios through {@code RestClient}. */
class RestClientContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return SpringClients.restClient(engine);
  }
}
