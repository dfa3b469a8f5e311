package io.hostpace.httpclient5;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

/** The shared scenarios through the async client: no thread waits. */
class AsyncContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return HttpClient5Clients.async(engine);
  }
}
