// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Emits logs on demand, for log queries, filters and subscriptions: indexed topics to match on,
/// several logs per transaction, and logs from a second contract in the same transaction.
contract LogEmitter {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Note(uint256 indexed tag, bytes data);
    event Plain(uint256 value);

    /// One Transfer log.
    function transfer(address to, uint256 value) external {
        emit Transfer(msg.sender, to, value);
    }

    /// `count` Note logs tagged `tag`, each with its sequence number as data.
    function notes(uint256 tag, uint256 count) external {
        for (uint256 i = 0; i < count; i++) emit Note(tag, abi.encode(i));
    }

    /// A log without indexed topics but the event's.
    function plain(uint256 value) external {
        emit Plain(value);
    }

    /// `count` Note logs here, then `otherCount` from `other` (another LogEmitter), in one transaction.
    function notesWith(LogEmitter other, uint256 tag, uint256 count, uint256 otherCount) external {
        for (uint256 i = 0; i < count; i++) emit Note(tag, abi.encode(i));
        other.notes(tag, otherCount);
    }
}
