package io.brook.coordinator.group;

import io.brook.coordinator.group.offsets.OffsetStore;
import io.brook.coordinator.runtime.CoordinatorRecord;
import io.brook.coordinator.runtime.ShardContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;

/** ListGroups and DeleteGroups over one shard's groups. */
public final class GroupListings {
  /** What simple groups (offsets only) report. */
  static final String EMPTY_STATE = "Empty";

  private final ShardContext context;
  private final Groups groups;
  private final OffsetStore offsets;

  GroupListings(ShardContext context, Groups groups, OffsetStore offsets) {
    this.context = context;
    this.groups = groups;
    this.offsets = offsets;
  }

  /** One group in a ListGroups answer. */
  public record ListedGroup(String groupId, String protocolType, String state, GroupType type) {}

  /**
   * The shard's groups matching the filters (case-insensitive; empty filter matches all), including
   * simple groups that exist only through their offsets.
   */
  public List<ListedGroup> list(Set<String> statesFilter, Set<String> typesFilter) {
    Set<String> states = lower(statesFilter);
    Set<String> types = lower(typesFilter);
    List<ListedGroup> listed = new ArrayList<>();
    for (Group group : groups.all()) {
      listed.add(
          new ListedGroup(group.groupId(), group.protocolType(), group.stateName(), group.type()));
    }
    Set<String> simple = new TreeSet<>(offsets.groupIds());
    simple.addAll(offsets.pending().groupIds());
    for (String groupId : simple) {
      if (groups.get(groupId).isEmpty()) {
        listed.add(new ListedGroup(groupId, "", EMPTY_STATE, GroupType.CLASSIC));
      }
    }
    listed.removeIf(
        g ->
            (!states.isEmpty() && !states.contains(g.state().toLowerCase(Locale.ROOT)))
                || (!types.isEmpty() && !types.contains(g.type().wireName())));
    return listed;
  }

  private static Set<String> lower(Set<String> values) {
    Set<String> lowered = new java.util.HashSet<>();
    for (String value : values) {
      lowered.add(value.toLowerCase(Locale.ROOT));
    }
    return lowered;
  }

  /**
   * Deletes an empty group and its offsets.
   *
   * @return NONE once the deletion is durable; GROUP_ID_NOT_FOUND, GROUP_NOT_EMPTY, ...
   */
  public CompletableFuture<Errors> delete(String groupId) {
    Optional<Group> group = groups.get(groupId);
    if (group.isEmpty() && !offsets.hasOffsetsOrPending(groupId)) {
      return CompletableFuture.completedFuture(Errors.GROUP_ID_NOT_FOUND);
    }
    List<CoordinatorRecord> records = new ArrayList<>(offsets.deleteAll(groupId));
    if (group.isPresent()) {
      try {
        group.get().validateDeleteGroup();
      } catch (ApiException e) {
        return CompletableFuture.completedFuture(Errors.forException(e));
      }
      records.addAll(group.get().tombstones());
    }
    return context
        .write(records)
        .handle((ok, error) -> error == null ? Errors.NONE : Errors.forException(unwrap(error)));
  }

  private static Throwable unwrap(Throwable error) {
    return error instanceof java.util.concurrent.CompletionException && error.getCause() != null
        ? error.getCause()
        : error;
  }
}
