/**
 * Time and scheduling of the data plane, injected so the same replication code runs on real threads
 * in production and on a simulated clock in deterministic tests: {@link
 * io.brook.broker.time.Scheduler} with its production implementations ({@link
 * io.brook.broker.time.ExecutorScheduler}, {@link io.brook.broker.time.DeadlineScheduler}) and the
 * deterministic pair {@link io.brook.broker.time.MockTime} / {@link
 * io.brook.broker.time.ManualScheduler}.
 */
package io.brook.broker.time;
