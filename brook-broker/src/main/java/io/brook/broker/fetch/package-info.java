/**
 * Incremental fetch sessions (KIP-227): the broker remembers, per session, the partitions a client
 * fetches and what it last told it about each, so later fetches list only what changed and
 * responses carry only partitions with news. {@link io.brook.broker.fetch.FetchSessions} turns a
 * Fetch request into a {@link io.brook.broker.fetch.FetchContext}; {@link
 * io.brook.broker.fetch.FetchSessionCache} holds the sessions, bounded, with Kafka's eviction
 * rules.
 */
package io.brook.broker.fetch;
