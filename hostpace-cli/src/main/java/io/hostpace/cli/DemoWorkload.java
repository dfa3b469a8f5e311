package io.hostpace.cli;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.jena.query.Dataset;
import org.apache.jena.query.DatasetFactory;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.ModelFactory;
import org.apache.jena.rdf.model.Property;

/**
 * The demo's data and queries. People live in cities (on the QLever-like endpoint); cities are
 * in countries (on the KGF-like one). Query {@code i} asks, through two {@code SERVICE} clauses,
 * where person {@code i} lives and in which country: one row, known in advance, so a result can
 * be checked, not just counted.
 */
final class DemoWorkload {

  static final String NS = "http://example.org/demo/";
  private static final int CITIES = 7;
  private static final String[] COUNTRIES = {"Belgium", "Chile", "Kenya", "Norway", "Vietnam"};

  final int queries;

  DemoWorkload(int queries) {
    this.queries = queries;
  }

  /** Who lives where: for the QLever-like endpoint. */
  Dataset people() {
    Model model = ModelFactory.createDefaultModel();
    Property livesIn = model.createProperty(NS, "livesIn");
    for (int i = 0; i < queries; i++) {
      model.createResource(NS + "person" + i).addProperty(livesIn, model.createResource(city(i)));
    }
    return DatasetFactory.create(model);
  }

  /** Which city is in which country: for the KGF-like endpoint. */
  Dataset cities() {
    Model model = ModelFactory.createDefaultModel();
    Property inCountry = model.createProperty(NS, "inCountry");
    for (int c = 0; c < CITIES; c++) {
      model.createResource(NS + "city" + c).addProperty(inCountry, model.createResource(NS + COUNTRIES[c % COUNTRIES.length]));
    }
    return DatasetFactory.create(model);
  }

  /** The federated queries, one per person. */
  List<String> queries(URI people, URI cities) {
    List<String> texts = new ArrayList<>(queries);
    for (int i = 0; i < queries; i++) {
      texts.add("PREFIX ex: <" + NS + ">\n"
          + "SELECT ?city ?country WHERE {\n"
          + "  SERVICE <" + people + "> { ex:person" + i + " ex:livesIn ?city }\n"
          + "  SERVICE <" + cities + "> { ?city ex:inCountry ?country }\n"
          + "}");
    }
    return texts;
  }

  /** The one row query {@code i} must return, as "city country". */
  String expected(int i) {
    int c = i % CITIES;
    return NS + "city" + c + " " + NS + COUNTRIES[c % COUNTRIES.length];
  }

  private static String city(int person) {
    return NS + "city" + (person % CITIES);
  }
}
