// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

interface IERC20 {
    function transfer(address to, uint256 value) external returns (bool);
}

/// Calls an ERC20 pointer's transfer and catches its failure, so that tests can tell a refusal
/// of the bank that ends the call from one a contract recovered from.
contract PointerCatcher {
    /// Tries the transfer, then reverts with a reason of its own whatever happened.
    function transferThenRevert(IERC20 token, address to, uint256 value) external {
        try token.transfer(to, value) {} catch {}
        revert("caught the pointer failure");
    }

    /// Tries the transfer and reports whether it went through.
    function tryTransfer(IERC20 token, address to, uint256 value) external returns (bool) {
        try token.transfer(to, value) returns (bool ok) {
            return ok;
        } catch {
            return false;
        }
    }
}
