package io.brook.cli.verify;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A record's value carries its id, its run and a checksum a reader checks. */
class VerifyRecordTest {
  @Test
  void aValueMatchesItsRecordOnly() {
    String value = VerifyRecord.value("p1-3", "run1");
    assertThat(VerifyRecord.mismatch("p1-3", "run1", value)).isNull();
    assertThat(VerifyRecord.mismatch("p1-4", "run1", value)).startsWith("value of another record");
    assertThat(VerifyRecord.mismatch("p1-3", "run2", value)).startsWith("value of another record");
  }

  @Test
  void aChangedValueFailsItsChecksum() {
    String value = VerifyRecord.value("p1-3", "run1");
    assertThat(VerifyRecord.mismatch("p1-3", "run1", value.replace("p1-3", "p1-4")))
        .isEqualTo("checksum mismatch");
    assertThat(VerifyRecord.mismatch("p1-3", "run1", "garbage")).isEqualTo("no checksum");
    assertThat(VerifyRecord.mismatch("p1-3", "run1", null)).isEqualTo("no value");
  }
}
