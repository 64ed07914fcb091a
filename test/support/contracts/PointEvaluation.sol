// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// Calls the KZG point-evaluation precompile (0x0a, EIP-4844) from a contract, for what a
/// transaction sees of its answer.
contract PointEvaluation {
    event Evaluated(bytes output);

    /// Logs the precompile's answer to `input`; reverts when the precompile fails.
    function evaluate(bytes calldata input) external returns (bytes memory output) {
        bool ok;
        (ok, output) = address(0x0a).staticcall(input);
        require(ok, "point evaluation failed");
        emit Evaluated(output);
    }
}
