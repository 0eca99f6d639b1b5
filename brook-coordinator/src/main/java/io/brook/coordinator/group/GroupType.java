package io.brook.coordinator.group;

/** The group protocols, named as ListGroups reports them in its types filter. */
public enum GroupType {
  CLASSIC("classic"),
  CONSUMER("consumer"),
  SHARE("share");

  private final String wireName;

  GroupType(String wireName) {
    this.wireName = wireName;
  }

  public String wireName() {
    return wireName;
  }
}
