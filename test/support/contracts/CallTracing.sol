// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface IBank {
    function balance(address acc, string memory denom) external view returns (uint256 amount);
}

interface IAddr {
    function getSeiAddr(address addr) external view returns (string memory response);
}

/// What `CallTracing` calls into: stores, logs, reverts and burns gas on demand.
contract CallTarget {
    event Seen(address indexed caller, uint256 value);

    uint256 public stored;

    function touch(uint256 value) external payable returns (uint256) {
        stored = value;
        emit Seen(msg.sender, value);
        return value * 2;
    }

    function read() external view returns (uint256) {
        return stored;
    }

    /// Logs, then reverts with `reason`: the log must not show.
    function fail(string calldata reason) external {
        emit Seen(msg.sender, 0);
        revert(reason);
    }

    /// Hashes in scratch memory until the gas runs out: a plain `out of gas` (geth words an SSTORE
    /// or a memory expansion short of gas with more after it).
    function burn() external {
        assembly {
            for {} 1 {} {
                mstore(0, keccak256(0, 32))
            }
        }
    }
}

/// A contract made by `CallTracing`, that can destroy itself.
contract Child {
    constructor() payable {}

    function bye(address payable to) external {
        selfdestruct(to);
    }
}

/// Every kind of call frame geth's call tracers show, for the tracer tests. It makes its own
/// `CallTarget` (the test compiler builds one contract per file).
contract CallTracing {
    event Step(uint256 indexed n);

    CallTarget public immutable target = new CallTarget();

    /// CALL (with value), STATICCALL, DELEGATECALL and a caught revert whose log goes, with logs between.
    function nested() external payable returns (uint256 read) {
        emit Step(1);
        target.touch{value: msg.value}(7);
        emit Step(2);
        read = target.read();
        (bool ok, ) = address(target).delegatecall(abi.encodeCall(CallTarget.touch, (9)));
        require(ok, "delegatecall failed");
        try target.fail("nope") {} catch {}
        emit Step(3);
    }

    function failWith(string calldata reason) external pure {
        revert(reason);
    }

    /// An inner frame out of gas, caught.
    function starve() external {
        try target.burn{gas: 50_000}() {} catch {}
    }

    /// CREATE (with value) and CREATE2.
    function make(bytes32 salt) external payable returns (address made, address made2) {
        made = address(new Child{value: msg.value}());
        made2 = address(new Child{salt: salt}());
    }

    /// A child made with value that destroys itself in favour of `to`.
    function makeAndDestroy(address payable to) external payable {
        Child child = new Child{value: msg.value}();
        child.bye(to);
    }

    /// `holder`'s usei from the bank precompile and `associated`'s native address from the address
    /// precompile, each with 50,000 gas.
    function lookups(address holder, address associated) external view returns (uint256 balance, string memory seiAddr) {
        balance = IBank(0x0000000000000000000000000000000000001001).balance{gas: 50_000}(holder, "usei");
        seiAddr = IAddr(0x0000000000000000000000000000000000001004).getSeiAddr{gas: 50_000}(associated);
    }
}
