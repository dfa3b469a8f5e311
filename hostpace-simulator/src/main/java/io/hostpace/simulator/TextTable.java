package io.hostpace.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A table for a terminal: a heading per column, columns two spaces apart, text aligned left and
 * figures right, each column as wide as its widest cell. The last column is not padded, so that no
 * line ends in spaces.
 *
 * <pre>
 * policy    completed  lost  finish s
 * seed            300     0     476.3
 * </pre>
 */
final class TextTable {

  private final List<String> headings = new ArrayList<>();
  private final List<Boolean> right = new ArrayList<>();
  private final List<List<String>> rows = new ArrayList<>();

  /** A column of text, aligned left. */
  TextTable text(String heading) {
    headings.add(heading);
    right.add(false);
    return this;
  }

  /** A column of figures, aligned right. */
  TextTable figure(String heading) {
    headings.add(heading);
    right.add(true);
    return this;
  }

  /** A row, a cell per column in their order. */
  TextTable row(String... cells) {
    if (cells.length != headings.size()) {
      throw new IllegalArgumentException("a row of " + cells.length + " cells in a table of " + headings.size() + " columns");
    }
    rows.add(List.of(cells));
    return this;
  }

  @Override
  public String toString() {
    int[] widths = new int[headings.size()];
    for (int c = 0; c < widths.length; c++) {
      widths[c] = headings.get(c).length();
      for (List<String> row : rows) {
        widths[c] = Math.max(widths[c], row.get(c).length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headings, widths);
    rows.forEach(row -> line(out, row, widths));
    return out.toString();
  }

  private void line(StringBuilder out, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.size(); c++) {
      if (c > 0) {
        line.append("  ");
      }
      String cell = cells.get(c);
      String pad = " ".repeat(widths[c] - cell.length());
      line.append(right.get(c) ? pad + cell : cell + pad);
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }

  /** A whole number with thousands separated: {@code 1,734}. */
  static String whole(long value) {
    return String.format(Locale.ROOT, "%,d", value);
  }

  /** A number to {@code places} decimals, thousands separated: {@code 1,719.1}. */
  static String decimals(double value, int places) {
    return String.format(Locale.ROOT, "%,." + places + "f", value);
  }
}
