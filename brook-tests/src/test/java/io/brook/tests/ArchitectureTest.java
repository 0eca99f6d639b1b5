package io.brook.tests;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module dependency rules of docs/architecture.md, checked on the compiled main classes of
 * every module. Each module lives in its own package ({@code io.brook.storage} is brook-storage,
 * and so on), so package rules are module rules; inside brook-controller, the Ratis adapter ({@code
 * io.brook.controller.quorum}) has a rule of its own. A failing rule names the offending class and
 * dependency: remove the dependency, or change the rule together with docs/architecture.md.
 */
class ArchitectureTest {

  /** Every module's package, the lowest layers first. */
  private static final List<String> MODULES =
      List.of(
          "io.brook.storage..",
          "io.brook.protocol..",
          "io.brook.metadata..",
          "io.brook.controller..",
          "io.brook.coordinator..",
          "io.brook.broker..",
          "io.brook.server..",
          "io.brook.testkit..",
          "io.brook.testports..",
          "io.brook.bench..");

  /** kafka-clients packages that carry no compatibility promise (docs/adr/0001). */
  private static final String[] KAFKA_CLIENTS_INTERNALS = {
    "org.apache.kafka.common.record.internal..",
    "org.apache.kafka.common.requests..",
    "org.apache.kafka.clients..",
    "org.apache.kafka.common.network..",
  };

  /**
   * The classes of brook-controller, the Ratis adapter ({@code io.brook.controller.quorum}) too.
   */
  private static final DescribedPredicate<JavaClass> CONTROLLER_MODULE =
      resideInAnyPackage("io.brook.controller..");

  /**
   * What brook-controller uses of brook-broker: the base class and error mapping of Kafka API
   * handlers, the controller channel's wire form and the set of APIs brokers forward, the bounded
   * executor of off-loop handlers, the data plane's scheduler (the liveness probe's timer), and the
   * ACL checks every API handler shares (the request authorizer and the ACL APIs' base class).
   * Nothing of the data plane: no replica manager, logs, purgatory or coordinator plumbing.
   */
  private static final Set<String> BROKER_CLASSES_THE_CONTROLLER_USES =
      Set.of(
          "io.brook.broker.api.KafkaApi",
          "io.brook.broker.api.ApiFailure",
          "io.brook.broker.api.AclApi",
          "io.brook.broker.auth.RequestAuthorizer",
          "io.brook.broker.cluster.ControllerEnvelope",
          "io.brook.broker.cluster.ForwardingHandler",
          "io.brook.broker.cluster.OffloadedHandler",
          "io.brook.broker.time.Scheduler",
          "io.brook.broker.time.ExecutorScheduler",
          // controller_mutation_rate is charged where the controller applies topic changes, with
          // the same entity precedence and sensors as the brokers' client quotas.
          "io.brook.broker.quota.ControllerMutationQuotas",
          "io.brook.broker.quota.MutationQuota");

  private static JavaClasses brook;

  @BeforeAll
  static void importMainClasses() {
    brook =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.brook");
  }

  /** The packages of every module except the given ones. */
  private static String[] modulesExcept(String... allowed) {
    List<String> keep = Arrays.asList(allowed);
    return MODULES.stream().filter(m -> !keep.contains(m)).toArray(String[]::new);
  }

  @Test
  void storageDependsOnNoOtherModule() {
    noClasses()
        .that()
        .resideInAPackage("io.brook.storage..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(modulesExcept("io.brook.storage.."))
        .check(brook);
  }

  @Test
  void protocolIsStorageFreeCodecCode() {
    noClasses()
        .that()
        .resideInAPackage("io.brook.protocol..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(modulesExcept("io.brook.protocol.."))
        .check(brook);
  }

  @Test
  void metadataDependsOnNoOtherModuleAndOnlyOnPublicKafkaClasses() {
    noClasses()
        .that()
        .resideInAPackage("io.brook.metadata..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(modulesExcept("io.brook.metadata.."))
        .check(brook);
    noClasses()
        .that()
        .resideInAPackage("io.brook.metadata..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(KAFKA_CLIENTS_INTERNALS)
        .check(brook);
  }

  @Test
  void onlyTheQuorumAdapterTouchesRatis() {
    noClasses()
        .that(not(resideInAnyPackage("io.brook.controller.quorum..")))
        .should()
        .dependOnClassesThat()
        .resideInAPackage("org.apache.ratis..")
        .check(brook);
  }

  @Test
  void onlyTheServerAssemblesTheControllerSide() {
    // The broker side is a metadata follower (MetadataQuorum) and a lifecycle client (the
    // controller channel): it never runs controller code itself.
    noClasses()
        .that(not(CONTROLLER_MODULE).and(not(resideInAnyPackage("io.brook.server.."))))
        .should()
        .dependOnClassesThat(CONTROLLER_MODULE)
        .check(brook);
  }

  @Test
  void controllerBuildsOnMetadataProtocolAndBroker() {
    // brook-broker only for the few classes controllerUsesOnlyTheBrokerClassesItNeeds lists.
    noClasses()
        .that(CONTROLLER_MODULE)
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            modulesExcept(
                "io.brook.controller..",
                "io.brook.controller.quorum..",
                "io.brook.metadata..",
                "io.brook.protocol..",
                "io.brook.broker.."))
        .check(brook);
  }

  @Test
  void controllerUsesOnlyTheBrokerClassesItNeeds() {
    noClasses()
        .that(CONTROLLER_MODULE)
        .should()
        .dependOnClassesThat(
            resideInAnyPackage("io.brook.broker..")
                .and(
                    not(
                        DescribedPredicate.describe(
                            "one of " + BROKER_CLASSES_THE_CONTROLLER_USES,
                            c ->
                                BROKER_CLASSES_THE_CONTROLLER_USES.contains(
                                    c.getName().replaceFirst("\\$.*", ""))))))
        .check(brook);
  }

  @Test
  void brokerNeverDependsOnTheControllersStateMachine() {
    // The broker follows the metadata image and talks to the controller over the controller
    // channel; the state machine (io.brook.controller.state) is the controller's alone. Implied by
    // onlyTheServerAssemblesTheControllerSide, and stated on its own for the coordinators too.
    noClasses()
        .that()
        .resideInAnyPackage("io.brook.broker..", "io.brook.coordinator..", "io.brook.metadata..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.brook.controller.state..")
        .check(brook);
  }

  @Test
  void ratisAdapterBuildsOnMetadataOnly() {
    noClasses()
        .that()
        .resideInAPackage("io.brook.controller.quorum..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage(modulesExcept("io.brook.metadata.."))
                .and(not(resideInAnyPackage("io.brook.controller.quorum.."))))
        .check(brook);
  }

  @Test
  void kafkaClientsInternalsStayInStorageProtocolAndBroker() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.brook.metadata..",
            "io.brook.controller.quorum..",
            "io.brook.server..",
            "io.brook.testkit..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(KAFKA_CLIENTS_INTERNALS)
        .check(brook);
    // The controller serves Kafka APIs: its call dispatcher builds the RequestHeader of a
    // forwarded request's RequestContext, and nothing else of the internals.
    noClasses()
        .that()
        .resideInAPackage("io.brook.controller..")
        .should()
        .dependOnClassesThat(
            resideInAnyPackage(KAFKA_CLIENTS_INTERNALS)
                .and(not(JavaClass.Predicates.equivalentTo(RequestHeader.class))))
        .check(brook);
  }

  @Test
  void onlyTheServerAssemblesTheNode() {
    noClasses()
        .that()
        .resideInAnyPackage(modulesExcept("io.brook.server..", "io.brook.testkit.."))
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.brook.server..")
        .check(brook);
  }

  @Test
  void coordinatorsImportNoNetworkingAndNoBrokerInternals() {
    noClasses()
        .that()
        .resideInAPackage("io.brook.coordinator..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.netty..",
            "io.brook.protocol..",
            "io.brook.broker..",
            "io.brook.server..",
            "org.apache.ratis..")
        .check(brook);
  }
}
