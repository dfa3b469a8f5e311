package io.hostpace.httpclient5;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

/** The shared scenarios through the classic client: each attempt is sent on the caller's thread. */
class ClassicContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return HttpClient5Clients.classic(engine);
  }
}
