package io.brook.cli;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.brook.server.BrookMain;
import io.brook.server.config.BrokerConfigDef;
import io.brook.server.config.ConfigArea;
import io.brook.storage.log.TopicConfigs;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The CLI operates a cluster only through kafka-clients' public API, so it works against any
 * Kafka-compatible cluster: of Brook it uses the node's main (for {@code dev} and {@code server})
 * and the config definitions behind {@code config explain}, and nothing of kafka-clients' wire
 * internals.
 */
class CliArchitectureTest {

  private static final JavaClasses CLI =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("io.brook.cli");

  /**
   * By name, nested classes included: how far ArchUnit resolves a nested class's enclosing class
   * depends on whether the dependency is a jar or a classes directory.
   */
  private static final DescribedPredicate<JavaClass> ALLOWED_BROOK_CLASSES =
      DescribedPredicate.describe(
          "BrookMain (and its commands), BrokerConfigDef, ConfigArea or TopicConfigs",
          c ->
              Stream.of(
                      BrookMain.class, BrokerConfigDef.class, ConfigArea.class, TopicConfigs.class)
                  .map(Class::getName)
                  .anyMatch(n -> c.getName().equals(n) || c.getName().startsWith(n + "$")));

  @Test
  void usesOnlyTheNodeMainAndConfigDefinitionsOfBrook() {
    noClasses()
        .that()
        .resideInAPackage("io.brook.cli..")
        .should()
        .dependOnClassesThat(
            resideInAPackage("io.brook..")
                .and(not(resideInAPackage("io.brook.cli..")))
                .and(not(ALLOWED_BROOK_CLASSES)))
        .check(CLI);
  }

  @Test
  void usesNoKafkaClientsInternals() {
    noClasses()
        .that()
        .resideInAPackage("io.brook.cli..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage(
                "org.apache.kafka.clients.consumer.internals..",
                "org.apache.kafka.clients.producer.internals..",
                "org.apache.kafka.clients.admin.internals..",
                "org.apache.kafka.common.record..",
                "org.apache.kafka.common.requests..",
                "org.apache.kafka.common.message..",
                "org.apache.kafka.common.protocol..",
                "org.apache.kafka.common.network.."))
        .check(CLI);
  }
}
