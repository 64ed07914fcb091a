// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Emits an ERC20's events on demand, for the log bench: a busy token's Transfer and Approval logs,
/// and in the same transaction Transfer logs of a second instance, so that neither the emitter nor
/// the event alone narrows a query down as far as both together.
contract TokenEvents {
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    /// `transfers` Transfer and `approvals` Approval logs here, then `otherTransfers` Transfer logs from `other`.
    function emitEvents(TokenEvents other, uint256 transfers, uint256 approvals, uint256 otherTransfers) external {
        emitTransfers(transfers);
        for (uint256 i = 0; i < approvals; i++) emit Approval(msg.sender, address(uint160(i + 1)), i);
        other.emitTransfers(otherTransfers);
    }

    /// `count` Transfer logs, each to a different address.
    function emitTransfers(uint256 count) public {
        for (uint256 i = 0; i < count; i++) emit Transfer(msg.sender, address(uint160(i + 1)), i);
    }
}
