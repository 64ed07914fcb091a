// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// The bank precompile, with the reference chain's ABI.
interface IBank {
    function send(address fromAddress, address toAddress, string memory denom, uint256 amount)
        external
        returns (bool success);

    function balance(address acc, string memory denom) external view returns (uint256 amount);

    function supply(string memory denom) external view returns (uint256 response);

    function name(string memory denom) external view returns (string memory response);

    function symbol(string memory denom) external view returns (string memory response);

    function decimals(string memory denom) external view returns (uint8 response);
}

/// The ERC20 pointer of a native denomination: its balances are the bank's balances of `denom`.
/// The node places the runtime code at the pointer's address and writes `denom` into slot 0, so
/// nothing here relies on a constructor; the storage layout (slot 0 `denom`, slot 1 allowances) is
/// part of that contract. Errors are OpenZeppelin v5's; the bank's own refusals, such as
/// insufficient funds, revert with the bank's reason.
contract NativeDenomPointer {
    IBank private constant BANK = IBank(0x0000000000000000000000000000000000001001);

    string public denom;
    mapping(address owner => mapping(address spender => uint256)) private allowances;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error ERC20InvalidSender(address sender);
    error ERC20InvalidReceiver(address receiver);
    error ERC20InvalidSpender(address spender);

    function name() external view returns (string memory) {
        return BANK.name(denom);
    }

    function symbol() external view returns (string memory) {
        return BANK.symbol(denom);
    }

    function decimals() external view returns (uint8) {
        return BANK.decimals(denom);
    }

    function totalSupply() external view returns (uint256) {
        return BANK.supply(denom);
    }

    function balanceOf(address account) external view returns (uint256) {
        return BANK.balance(account, denom);
    }

    function allowance(address owner, address spender) external view returns (uint256) {
        return allowances[owner][spender];
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        if (spender == address(0)) revert ERC20InvalidSpender(address(0));
        allowances[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowances[from][msg.sender];
        // An infinite allowance is never spent, as in OpenZeppelin's ERC20.
        if (allowed != type(uint256).max) {
            if (allowed < value) revert ERC20InsufficientAllowance(msg.sender, allowed, value);
            unchecked {
                allowances[from][msg.sender] = allowed - value;
            }
        }
        _transfer(from, to, value);
        return true;
    }

    function _transfer(address from, address to, uint256 value) private {
        if (from == address(0)) revert ERC20InvalidSender(address(0));
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        // The bank reverts with its reason when it refuses; it never answers false.
        BANK.send(from, to, denom, value);
        emit Transfer(from, to, value);
    }
}
