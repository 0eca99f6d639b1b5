/**
 * Small human-readable checkpoint files (recovery points, log start offsets, leader epochs) and the
 * atomic write-fsync-rename they all use.
 */
package io.brook.storage.checkpoint;
