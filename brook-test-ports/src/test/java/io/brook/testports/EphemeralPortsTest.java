package io.brook.testports;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EphemeralPortsTest {
  @Test
  void readsTheRangeAndTheReservedPortsInProcFormat(@TempDir Path dir) throws Exception {
    // Given the two /proc files as the kernel writes them
    Path range = Files.writeString(dir.resolve("range"), "20000\t29999\n");
    Path reserved = Files.writeString(dir.resolve("reserved"), "25000-25009,27000\n");

    // When read
    EphemeralPorts ports = EphemeralPorts.read(range, reserved);

    // Then the range counts, its ends included, except the reserved ports
    assertThat(ports.low()).isEqualTo(20000);
    assertThat(ports.high()).isEqualTo(29999);
    assertThat(ports.contains(19999)).isFalse();
    assertThat(ports.contains(20000)).isTrue();
    assertThat(ports.contains(29999)).isTrue();
    assertThat(ports.contains(30000)).isFalse();
    assertThat(ports.contains(24999)).isTrue();
    assertThat(ports.contains(25000)).isFalse();
    assertThat(ports.contains(25009)).isFalse();
    assertThat(ports.contains(25010)).isTrue();
    assertThat(ports.contains(27000)).isFalse();
    assertThat(ports.toString()).contains("20000-29999", "25000-25009", "27000");
  }

  @Test
  void anUnreadableOrMalformedRangeFallsBackToOneCoveringEveryCommonDefault(@TempDir Path dir)
      throws Exception {
    Path missing = dir.resolve("missing");
    Path malformed = Files.writeString(dir.resolve("range"), "32768\n");
    for (EphemeralPorts ports :
        new EphemeralPorts[] {
          EphemeralPorts.read(missing, missing),
          EphemeralPorts.read(malformed, missing),
          EphemeralPorts.parse("60999 32768", null),
          EphemeralPorts.parse("0 70000", null)
        }) {
      // Linux's default 32768-60999 and IANA's 49152-65535, nothing below
      assertThat(ports.contains(32767)).isFalse();
      assertThat(ports.contains(32768)).isTrue();
      assertThat(ports.contains(60999)).isTrue();
      assertThat(ports.contains(65535)).isTrue();
      assertThat(ports.toString()).contains("assumed");
    }
  }

  @Test
  void malformedReservationsCountAsNone() {
    // Treating them as none can only make the set larger, never let a kernel-chosen port through
    EphemeralPorts ports = EphemeralPorts.parse("20000 29999", "25000-x");
    assertThat(ports.contains(25000)).isTrue();
    assertThat(EphemeralPorts.parse("20000 29999", "25009-25000").contains(25005)).isTrue();
  }

  @Test
  void thisMachinesRangeIsReadFromProcWhereThereIsOne() throws Exception {
    EphemeralPorts ports = EphemeralPorts.ofThisMachine();
    if (Files.isReadable(EphemeralPorts.RANGE_FILE)) {
      String[] range = EphemeralPorts.readOrNull(EphemeralPorts.RANGE_FILE).trim().split("\\s+");
      assertThat(range).hasSize(2);
      assertThat(ports.toString()).doesNotContain("assumed");
      assertThat(ports.low()).isEqualTo(Integer.parseInt(range[0]));
      assertThat(ports.high()).isEqualTo(Integer.parseInt(range[1]));
    } else {
      assertThat(ports.low()).isEqualTo(EphemeralPorts.FALLBACK_LOW);
      assertThat(ports.high()).isEqualTo(EphemeralPorts.FALLBACK_HIGH);
    }
  }
}
