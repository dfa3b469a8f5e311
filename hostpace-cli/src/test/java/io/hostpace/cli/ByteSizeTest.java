package io.hostpace.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The sizes {@code --max-body} takes, and how its messages write them (SPEC T7). */
class ByteSizeTest {

  @Test
  void aSizeIsBytesOrANumberWithAUnitOfAPowerOf1024InAnyCase() {
    assertThat(ByteSize.parse("4096")).isEqualTo(4096);
    assertThat(ByteSize.parse("12b")).isEqualTo(12);
    assertThat(ByteSize.parse("500k")).isEqualTo(512_000);
    assertThat(ByteSize.parse("4KiB")).isEqualTo(4096);
    assertThat(ByteSize.parse("4 kb")).isEqualTo(4096);
    assertThat(ByteSize.parse("64MiB")).isEqualTo(64L << 20);
    assertThat(ByteSize.parse("1.5m")).isEqualTo(1_572_864);
    assertThat(ByteSize.parse(" 2G ")).isEqualTo(2L << 30);
  }

  @Test
  void anythingElseIsRejectedWithAMessageThatQuotesIt() {
    assertThatThrownBy(() -> ByteSize.parse("64 MiBs")).hasMessageStartingWith("'64 MiBs' is not a size: ");
    assertThatThrownBy(() -> ByteSize.parse("-1")).hasMessageStartingWith("'-1' is not a size: ");
    assertThatThrownBy(() -> ByteSize.parse("")).hasMessageStartingWith("'' is not a size: ");
    assertThatThrownBy(() -> ByteSize.parse("0k")).hasMessage("'0k' is less than one byte");
    assertThatThrownBy(() -> ByteSize.parse("99999999999G")).hasMessage("'99999999999G' is more bytes than a body can have");
  }

  @Test
  void aSizeIsWrittenInTheLargestUnitItFills() {
    assertThat(ByteSize.format(1)).isEqualTo("1 byte");
    assertThat(ByteSize.format(1023)).isEqualTo("1023 bytes");
    assertThat(ByteSize.format(4096)).isEqualTo("4 KiB");
    assertThat(ByteSize.format(512_000)).isEqualTo("500 KiB");
    assertThat(ByteSize.format(1_572_864)).isEqualTo("1.5 MiB");
    assertThat(ByteSize.format(64L << 30)).isEqualTo("64 GiB");
  }
}
