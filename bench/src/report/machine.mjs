// @ts-check
// The machine a run measured on: probed once when it starts, printed as one line under the report's title.
import os from "node:os";

/** Node version, CPU model, cores, platform and memory. */
export function machineInfo() {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: cpus[0]?.model.trim() ?? "unknown CPU",
    cores: os.availableParallelism?.() ?? cpus.length,
    platform: `${os.platform()} ${os.arch()}`,
    memoryGB: Math.round(os.totalmem() / 2 ** 30),
    /** Other work on the machine skews timings: the 1-minute load average when the run started. */
    loadAverage: Math.round((os.loadavg()[0] ?? 0) * 100) / 100,
  };
}

/** @param {ReturnType<typeof machineInfo>} machine */
export function machineLine(machine) {
  return (
    `node ${machine.node}, ${machine.cpu}, ${machine.cores} cores, ${machine.platform}, ` +
    `${machine.memoryGB} GB RAM, load average ${machine.loadAverage}`
  );
}
