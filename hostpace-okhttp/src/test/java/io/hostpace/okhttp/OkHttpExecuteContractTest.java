package io.hostpace.okhttp;

import io.hostpace.Hostpace;
import io.hostpace.testkit.AdapterContract;
import io.hostpace.testkit.AdapterUnderTest;

/** The shared scenarios through {@code Call.execute()}: each attempt is sent on the caller's thread. */
class OkHttpExecuteContractTest extends AdapterContract {
  @Override
  protected AdapterUnderTest adapter(Hostpace engine) {
    return OkHttpClients.execute(engine);
  }
}
