package io.hostpace.okhttp;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

/** The shared scenarios through {@code Call.enqueue()}: each attempt is sent on a dispatcher thread. */
class OkHttpEnqueueContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return OkHttpClients.enqueue(engine);
  }
}
