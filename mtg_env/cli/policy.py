"""`mtg-env policy convert`: a trusted pickled checkpoint to a data-only policy file."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .common import check_output, clean, command_group, echo, fail

policy_app = command_group("Policy files: convert a trusted pickled checkpoint to safetensors.")


@policy_app.command("convert")
@clean
def policy_convert(
    src: Annotated[str, typer.Argument(help="A pickled policy: an sb3 .zip or an old .pt.")],
    out: Annotated[str, typer.Argument(help="The policy file to write (.safetensors).")],
) -> None:
    """Convert a pickled policy checkpoint that you trust to the data-only policy format
    (needs --trust-pickle before the command: unpickling can run code in the file)."""

    from agents.policy import export_policy, load_model

    if Path(out).suffix != ".safetensors":
        fail(f"{out}: a policy file is written as .safetensors")
    check_output(out, [src], "OUT")
    policy = load_model(src)
    export_policy(policy, out)
    echo(f"wrote {out} ({Path(out).stat().st_size / 1e6:.1f} MB)")
