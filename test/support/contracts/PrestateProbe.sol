// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

interface Transferable {
    function transfer(address to, uint256 value) external returns (bool);
}

/// A contract that holds ether until it destroys itself.
contract PrestateDoomed {
    constructor() payable {}

    function destroy(address payable beneficiary) external {
        selfdestruct(beneficiary);
    }
}

/// Calls another contract, creates one and deletes its own storage, for the prestate tracer tests.
contract PrestateProbe {
    /// Slot 0.
    uint256 public stored = 1;

    function relay(Transferable token, address to, uint256 value) external {
        token.transfer(to, value);
    }

    function create() external payable returns (address) {
        return address(new PrestateDoomed{value: msg.value}());
    }

    function clear() external {
        delete stored;
    }
}
