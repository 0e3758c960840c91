"""How well does the network follow one MMD step's target?  A diagnostic for bench/neural.py (issue #24).

Runs ``--warm`` steps of the default learner (as ``bench/neural.py`` does, the same seed), takes the next
step's target policy and weights, and fits copies of the network to it under several regimes (Adam steps,
learning rate, whether Adam's moments carry over from training), printing the weighed KL(target ‖ network)
per unit of weight before and after each fit and the exact exploitability of the fitted network beside the
target's as a table::

    nice -n 10 .venv/bin/python bench/neural_fit.py --digits 3 --serial-length 2 --warm 30
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # numpy's BLAS threads fight over 2 shared cores

import argparse
import dataclasses
import time

import numpy as np

from core.serial.rules import make_rules
from core.serial.solve import Format
from core.serial.solve.neural import Learner, TrainConfig, Tree, exploitability


def clone(learner: Learner, config: TrainConfig) -> Learner:
    """The learner as it is (network, Adam's moments, magnet; the tree shared) under another configuration."""
    return dataclasses.replace(learner, config=config, net=learner.net.copy(), magnet=learner.magnet.copy(),
                               _m=[m.copy() for m in learner._m], _v=[v.copy() for v in learner._v])


REGIMES = [  # (Adam steps, learning rate, keep training's Adam moments)
    (20, None, True), (100, None, True), (100, 0.001, False), (100, 0.003, False), (300, 0.001, False),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--digits", type=int, default=3)
    parser.add_argument("--serial-length", type=int, default=2)
    parser.add_argument("--warm", type=int, default=30, help="training steps before the step examined")
    parser.add_argument("--steps", type=int, default=300, help="the run's length (sets the learning-rate schedule)")
    parser.add_argument("--hidden", default="64,64")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    fmt = Format(make_rules("classic", rebid=True, digits=args.digits, serial_length=args.serial_length))
    config = TrainConfig(steps=args.steps, hidden=tuple(int(h) for h in args.hidden.split(",")), seed=args.seed)
    start = time.process_time()
    tree = Tree.build(fmt, config.window, config.summary, config.history)
    learner = Learner.create(tree, config)
    for _ in range(args.warm):
        learner.update()
    print(f"{fmt.rules.format_name}: after {args.warm} steps the network is at {learner.exploitability():.4f} "
          f"({time.process_time() - start:.0f} CPU s); the next step's learning rate {config.lr_at(learner.step):.4f}")
    # the next step's target, as Learner._mmd computes it (fit_steps 0: the network does not move)
    probe = clone(learner, dataclasses.replace(config, fit_steps=0))
    probe.update()
    assert probe.target is not None and probe.fit_kl is not None
    target = np.exp(probe.target)
    seats = exploitability(tree, target)
    print(f"the step's target as a table: {(seats[0] + seats[1]) / 2:.4f}; KL(target ‖ net) {probe.fit_kl[0]:.3e}")
    for fit_steps, lr, keep in REGIMES:
        changed = dataclasses.replace(config, fit_steps=fit_steps, reset_adam=not keep)
        trial = clone(learner, changed if lr is None else dataclasses.replace(changed, lr=lr, lr_final=None))
        began = time.process_time()
        trial.update()
        assert trial.fit_kl is not None
        print(f"  {fit_steps:>4} Adam steps, lr {lr or config.lr_at(learner.step):.4f}, "
              f"{'training' if keep else 'fresh'} moments: KL {trial.fit_kl[0]:.3e} → {trial.fit_kl[1]:.3e} "
              f"({trial.fit_kl[1] / trial.fit_kl[0]:.2f}); the network then {trial.exploitability():.4f} "
              f"({time.process_time() - began:.0f} CPU s)", flush=True)


if __name__ == "__main__":
    main()
