/**
 * The init and join phase modules a plan runs, imported up front.
 *
 * The command line loads each phase module when its phase first runs (the `workflow.ts` of
 * `core/phases/init/` and `core/phases/join/`). A plan runs nearly all of them anyway, and
 * importing them statically lets a single-file bundle of the library (`dist/kubeadm-core.js`)
 * keep only what they use: a bundler turns a dynamic import into a lazily initialised module
 * whose every export, and every export of what it imports, it keeps.
 *
 * @module
 */
import type { InitPhaseModules } from "../core/phases/init/phases.ts";
import type { JoinPhaseModules } from "../core/phases/join/phases.ts";
import * as initCerts from "../core/phases/init/certs.ts";
import * as initKubeconfigs from "../core/phases/init/kubeconfig.ts";
import * as initControlPlane from "../core/phases/init/control_plane.ts";
import * as initEtcd from "../core/phases/init/etcd.ts";
import * as initKubeletStart from "../core/phases/init/kubelet_start.ts";
import * as initWaitControlPlane from "../core/phases/init/wait_control_plane.ts";
import * as initUploadConfig from "../core/phases/init/upload_config.ts";
import * as initUploadCerts from "../core/phases/init/upload_certs.ts";
import * as initMarkControlPlane from "../core/phases/init/mark_control_plane.ts";
import * as initBootstrapToken from "../core/phases/init/bootstrap_token.ts";
import * as initKubeletFinalize from "../core/phases/init/kubelet_finalize.ts";
import * as initAddons from "../core/phases/init/addons.ts";
import * as initShowJoinCommand from "../core/phases/init/show_join_command.ts";
import * as joinPrepare from "../core/phases/join/control_plane_prepare.ts";
import * as joinEtcd from "../core/phases/join/etcd.ts";
import * as joinKubelet from "../core/phases/join/kubelet_start.ts";
import * as joinMark from "../core/phases/join/mark_control_plane.ts";
import * as joinWait from "../core/phases/join/wait_control_plane.ts";

const loaded = <T>(module: T) => () => Promise.resolve(module);

/** The init phase modules, already loaded. */
export const INIT_PHASE_MODULES: InitPhaseModules = {
  certs: loaded(initCerts),
  kubeconfigs: loaded(initKubeconfigs),
  controlPlane: loaded(initControlPlane),
  etcd: loaded(initEtcd),
  kubeletStart: loaded(initKubeletStart),
  waitControlPlane: loaded(initWaitControlPlane),
  uploadConfig: loaded(initUploadConfig),
  uploadCerts: loaded(initUploadCerts),
  markControlPlane: loaded(initMarkControlPlane),
  bootstrapToken: loaded(initBootstrapToken),
  kubeletFinalize: loaded(initKubeletFinalize),
  addons: loaded(initAddons),
  showJoinCommand: loaded(initShowJoinCommand),
};

/** The join phase modules, already loaded. */
export const JOIN_PHASE_MODULES: JoinPhaseModules = {
  prepare: loaded(joinPrepare),
  etcd: loaded(joinEtcd),
  kubelet: loaded(joinKubelet),
  mark: loaded(joinMark),
  wait: loaded(joinWait),
};
