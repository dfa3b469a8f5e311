package io.hostpace.jena;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import java.net.http.HttpClient;
import org.apache.jena.http.HttpEnv;
import org.apache.jena.http.RegistryHttpClient;
import org.apache.jena.sparql.service.ServiceExecutorRegistry;
import org.apache.jena.sparql.util.Context;
import org.junit.jupiter.api.Test;

/** What an installation changes in Jena's global HTTP set-up, and what closing it puts back. */
class InstallationTest extends LiveJenaTest {

  @Test
  void I2_anInstallationPacesJenasDefaultAndRegisteredClientsAndClosingItPutsThemBack() {
    HttpClient dft = HttpEnv.getDftHttpClient();
    HttpClient byPrefix = HttpClient.newHttpClient();
    HttpClient exact = HttpClient.newHttpClient();
    RegistryHttpClient.get().addPrefix("http://prefix.test/", byPrefix);
    RegistryHttpClient.get().add("http://exact.test/sparql", exact);
    closeAfter(() -> {
      RegistryHttpClient.get().remove("http://prefix.test/");
      RegistryHttpClient.get().remove("http://exact.test/sparql");
    });
    int links = ServiceExecutorRegistry.get().getSingleChain().size();

    HostpaceJena.Installation installation = install(Hostpace.builder());

    assertThat(HttpEnv.getDftHttpClient()).isSameAs(installation.client()).isInstanceOf(InstalledHttpClient.class);
    assertThat(((InstalledHttpClient) installation.client()).paced().delegate()).isSameAs(dft);
    assertThat(RegistryHttpClient.get().find("http://prefix.test/any/path")).isInstanceOf(InstalledHttpClient.class)
        .extracting(client -> ((InstalledHttpClient) client).paced().delegate()).isSameAs(byPrefix);
    assertThat(RegistryHttpClient.get().find("http://exact.test/sparql")).isInstanceOf(InstalledHttpClient.class)
        .extracting(client -> ((InstalledHttpClient) client).paced().delegate()).isSameAs(exact);
    assertThat(RegistryHttpClient.get().find("http://exact.test/sparql/more")).as("an exact key is no prefix").isNull();
    assertThat(ServiceExecutorRegistry.get().getSingleChain()).hasSize(links + 1).first().isInstanceOf(PacingServiceLink.class);

    installation.close();

    assertThat(HttpEnv.getDftHttpClient()).isSameAs(dft);
    assertThat(RegistryHttpClient.get().find("http://prefix.test/any/path")).isSameAs(byPrefix);
    assertThat(RegistryHttpClient.get().find("http://exact.test/sparql")).isSameAs(exact);
    assertThat(RegistryHttpClient.get().find("http://exact.test/sparql/more")).isNull();
    assertThat(ServiceExecutorRegistry.get().getSingleChain()).hasSize(links);
    assertThat(HostpaceJena.installation()).isNull();
  }

  @Test
  void I2_oneInstallationAtATime() {
    Hostpace engine = Hostpace.create();
    HostpaceJena.Installation first = install(Hostpace.builder());

    assertThatThrownBy(() -> HostpaceJena.install(engine)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("already installed");

    first.close();
    install(Hostpace.builder()).close();
  }

  @Test
  void T7_aNegativeBodyCapIsRefusedWithWhatWasGivenAndNothingIsInstalled() {
    assertThatThrownBy(() -> HostpaceJena.install(Hostpace.create(), -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxBodyBytes is -1: expected 0 or more bytes of body");
    assertThat(HostpaceJena.installation()).isNull();
  }

  @Test
  void I2_whileInstalledJenasGlobalContextGivesNoCallContextAndClosingPutsItBack() {
    Object before = org.apache.jena.query.ARQ.getContext().get(org.apache.jena.query.ARQ.httpRegistryRequestModifer);
    Object after;

    HostpaceJena.Installation installation = install(Hostpace.builder());
    assertThat(HostpaceJena.callContext(org.apache.jena.query.ARQ.getContext())).isNull();
    installation.close();

    after = org.apache.jena.query.ARQ.getContext().get(org.apache.jena.query.ARQ.httpRegistryRequestModifer);
    assertThat((Object) after).isSameAs(before);
  }

  @Test
  void I2_aJenaContextGivesItsQueriesTheLastCallContextSetInIt() {
    CallContext one = CallContext.builder().limitsForEveryHost(Limits.inFlight(1)).build();
    CallContext two = CallContext.builder().limitsForEveryHost(Limits.inFlight(2)).build();

    Context context = HostpaceJena.contextOf(one);
    assertThat(HostpaceJena.callContext(context)).isSameAs(one);
    HostpaceJena.set(context, two);
    assertThat(HostpaceJena.callContext(context)).isSameAs(two);
    assertThat(((CallContextMarker) context.get(org.apache.jena.query.ARQ.httpRegistryRequestModifer)).underneath())
        .as("the registry under a marker set twice").isNull();
    assertThat(HostpaceJena.callContext(new Context())).isNull();
  }
}
