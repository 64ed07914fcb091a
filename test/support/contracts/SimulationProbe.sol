// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// An empty contract for `SimulationProbe.create`.
contract Created {}

/// What eth_call, the gas estimates and eth_createAccessList are tested against: each way a
/// call can fail, the block context it sees, storage it reads, and gas it needs beyond its use.
contract SimulationProbe {
    error Unauthorized(address caller, uint256 code);

    /// Slot 0.
    uint256 public stored;
    /// Slot 1.
    uint256 public other;

    constructor(uint256 stored_, uint256 other_) {
        stored = stored_;
        other = other_;
    }

    function setStored(uint256 value) external {
        stored = value;
    }

    function both() external view returns (uint256, uint256) {
        return (stored, other);
    }

    function requireStored(uint256 value) external view returns (uint256) {
        require(stored == value, "probe: stored differs");
        return stored;
    }

    function failWithReason() external pure {
        revert("probe: not allowed");
    }

    function failWithoutData() external pure {
        revert();
    }

    function failWithCustomError() external view {
        revert Unauthorized(msg.sender, 42);
    }

    function failAssert(uint256 value) external pure returns (uint256) {
        assert(value == 0);
        return value;
    }

    function divide(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    /// Runs until the gas or the time runs out.
    function spin() external view returns (uint256 turns) {
        while (gasleft() > 0) turns++;
    }

    /// Expands memory to `words` words: the gas it costs grows with the square of `words`.
    function touchMemory(uint256 words) external pure returns (uint256 value) {
        assembly {
            mstore(mul(words, 32), 1)
            value := mload(mul(words, 32))
        }
    }

    function context()
        external
        view
        returns (uint256 number, uint256 time, address coinbase, uint256 baseFee, uint256 gasLimit, uint256 randao)
    {
        return (block.number, block.timestamp, block.coinbase, block.basefee, block.gaslimit, block.prevrandao);
    }

    function balanceAt(address account) external view returns (uint256) {
        return account.balance;
    }

    function callerAndOrigin() external view returns (address, address) {
        return (msg.sender, tx.origin);
    }

    /// The address of a contract it creates now (it depends on this contract's nonce).
    function create() external returns (address) {
        return address(new Created());
    }

    /// Reads another probe's `stored`: what an access list names.
    function peek(SimulationProbe probe) external view returns (uint256) {
        return probe.stored();
    }

    /// Fills `count` fresh slots and clears them again: most of the gas is refunded, so the
    /// transaction needs far more gas than it finally uses.
    function churn(uint256 count) external returns (uint256 sum) {
        for (uint256 i = 0; i < count; i++) {
            assembly {
                sstore(add(i, 100), 1)
            }
        }
        for (uint256 i = 0; i < count; i++) {
            assembly {
                sum := add(sum, sload(add(i, 100)))
                sstore(add(i, 100), 0)
            }
        }
    }

    /// `churn` one call deeper, where only 63/64 of the gas left reaches it.
    function churnThroughCall(uint256 count) external returns (uint256) {
        return this.churn(count);
    }
}
