package io.brook.coordinator.group;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The groups of one shard, by id, whatever their protocol. Used on the shard's thread only. */
public final class Groups {
  private final Map<String, Group> byId = new HashMap<>();

  public Optional<Group> get(String groupId) {
    return Optional.ofNullable(byId.get(groupId));
  }

  /** The group if it exists and has type {@code type}. */
  public <G extends Group> Optional<G> get(String groupId, Class<G> type) {
    Group group = byId.get(groupId);
    return type.isInstance(group) ? Optional.of(type.cast(group)) : Optional.empty();
  }

  public void put(Group group) {
    byId.put(group.groupId(), group);
  }

  public void remove(String groupId) {
    byId.remove(groupId);
  }

  public Collection<Group> all() {
    return Collections.unmodifiableCollection(byId.values());
  }

  public int size() {
    return byId.size();
  }
}
