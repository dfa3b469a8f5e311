package io.hostpace.examples;

// tag::jena[]
import io.hostpace.CallContext;
import io.hostpace.Hostpace;
import io.hostpace.Limits;
import io.hostpace.jena.HostpaceJena;
import java.util.ArrayList;
import java.util.List;
import org.apache.jena.query.QueryExecution;
import org.apache.jena.query.ResultSet;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
// end::jena[]

/** Apache Jena: one installation paces every query, update and {@code SERVICE} clause Jena sends. */
final class JenaExample {

  // tag::jena[]
  static List<String> labels(Hostpace engine, String endpoint) {
    List<String> labels = new ArrayList<>();
    try (HostpaceJena.Installation installation = HostpaceJena.install(engine)) {
      CallContext batch = CallContext.builder().limitsForEveryHost(Limits.inFlight(2)).build();   // this batch's limits
      try (QueryExecution query = QueryExecutionHTTP.service(endpoint)
          .query("SELECT ?label { ?s <http://www.w3.org/2000/01/rdf-schema#label> ?label } LIMIT 10")
          .context(HostpaceJena.contextOf(batch))
          .build()) {
        ResultSet results = query.execSelect();
        results.forEachRemaining(row -> labels.add(row.getLiteral("label").getString()));
      }
    }   // Jena's HTTP set-up is as it was
    return labels;
  }
  // end::jena[]

  public static void main(String[] args) {
    Hostpace engine = Hostpace.builder().retries(10).build();
    System.out.println(labels(engine, "https://qlever.dev/api/wikidata"));
  }

  private JenaExample() {}
}
