import createDebug from 'debug';

/** The Node build of `debug` also has this, which its type declarations leave out. */
const debug = createDebug as typeof createDebug & { useColors(): boolean };

/**
 * ethereumjs makes a `debug` logger in the constructor of its tries, state managers, caches and
 * journals: about ten for each state and VM the node builds (a state for reads at the head at
 * every block, a VM and a state for every replay). Each logger asks whether stderr is a terminal
 * (a system call, for colours), which took about 0.1 ms of every block. stderr does not change
 * while the process runs, so it is asked once.
 */
const colours = debug.useColors();
debug.useColors = () => colours;
