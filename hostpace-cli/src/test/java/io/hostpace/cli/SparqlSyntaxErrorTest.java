package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import org.apache.jena.query.QueryFactory;
import org.apache.jena.query.QueryParseException;
import org.junit.jupiter.api.Test;

/**
 * What {@code hostpace sparql} says of a query Jena cannot parse: where, and what it did not
 * expect, in words rather than in the parser's ({@code Encountered: '32' (32)} is a space).
 */
class SparqlSyntaxErrorTest {

  static String errorOf(String query) {
    QueryParseException e = catchThrowableOfType(() -> QueryFactory.create(query), QueryParseException.class);
    assertThat(e).as("'%s' parses", query).isNotNull();
    return SparqlCommand.syntaxError(e);
  }

  @Test
  void aCharacterTheLexerDoesNotExpectIsNamedNotGivenAsItsCode() {
    assertThat(errorOf("SELEC * { }")).isEqualTo("query syntax error at line 1, column 6: unexpected space after 'SELEC'");
    assertThat(errorOf("SELECT * { ?s ?p \"abc }"))
        .isEqualTo("query syntax error at line 1, column 24: the query ends too soon after '\"abc }'");
  }

  @Test
  void aTokenTheParserDoesNotExpectIsQuotedOnceAndAnEarlyEndIsSaidSo() {
    assertThat(errorOf("SELECT * { ?s ?p ?o } ^")).isEqualTo("query syntax error at line 1, column 23: unexpected '^'");
    assertThat(errorOf("SELECT * { ?s <a b> ?o }")).isEqualTo("query syntax error at line 1, column 15: unexpected '<'");
    assertThat(errorOf("SELECT * WHERE {\n  ?s ?p \n")).isEqualTo("query syntax error at line 2, column 9: the query ends too soon");
  }

  @Test
  void aMessageOfAnotherShapeIsKeptAsJenaGivesIt() {
    assertThat(SparqlCommand.plainly("Unresolved prefixed name: ex:a")).isEqualTo("Unresolved prefixed name: ex:a");
    assertThat(errorOf("SELECT * { ?s ex:p ?o }")).startsWith("query syntax error at line 1, column 15: ")
        .doesNotContain("Encountered");
  }
}
