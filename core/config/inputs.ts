/**
 * What a kubeadm run takes besides its configuration file, by name: the configuration fields a
 * run may set over the file's (a value given wins) and the options of the run itself (where the
 * file is, what to print). The resolvers (`resolveInitConfig`, `resolveJoinConfig`, reset's and
 * upgrade's) read the ones of their workflow; every phase names the ones its command takes.
 * The command line binds one flag to each (`cli/flags.ts`), so no name of the command line is
 * needed here. Absent means not given.
 *
 * @module
 */
/** Every input of every workflow, typed (absent: not given). */
export interface Inputs {
  /** Path of the configuration file. */
  config?: string;
  /** This node's API server address (init: `localAPIEndpoint`; join: `controlPlane.…`). */
  advertiseAddress?: string;
  /** This node's API server port. */
  bindPort?: number;
  /** `apiServer.certSANs`. */
  certSANs?: string[];
  /** `certificatesDir` (reset: the directory it empties). */
  certificatesDir?: string;
  /** The key of the `kubeadm-certs` Secret (init: `certificateKey`; join: `controlPlane.…`). */
  certificateKey?: string;
  /** `controlPlaneEndpoint`. */
  controlPlaneEndpoint?: string;
  /** `nodeRegistration.criSocket` (reset: the runtime it cleans). */
  criSocket?: string;
  /** `dryRun`: plan every change and make none. */
  dryRun?: boolean;
  /** `featureGates` (merged over the file's). */
  featureGates?: Record<string, boolean>;
  /** `nodeRegistration.ignorePreflightErrors` (merged with the file's). */
  ignorePreflightErrors?: string[];
  /** `imageRepository`. */
  imageRepository?: string;
  /** `kubernetesVersion`. */
  kubernetesVersion?: string;
  /** `nodeRegistration.name`. */
  nodeName?: string;
  /** `patches.directory`. */
  patchesDir?: string;
  /** `networking.podSubnet`. */
  podSubnet?: string;
  /** `networking.serviceSubnet`. */
  serviceSubnet?: string;
  /** `networking.dnsDomain`. */
  dnsDomain?: string;
  /** `skipPhases`. */
  skipPhases?: string[];
  /** init: the first bootstrap token's value; join: discovery's and TLS bootstrap's token. */
  token?: string;
  /** The first bootstrap token's TTL (Go duration, `0`: never expires). */
  tokenTTL?: string;
  /** init: upload the shared certificates to `kubeadm-certs`. */
  uploadCerts?: boolean;
  /** init: withhold the bootstrap token in the output. */
  skipTokenPrint?: boolean;
  /** init: withhold the certificate key in the output. */
  skipCertificateKeyPrint?: boolean;
  /** init: the directory of the kubeconfig files. */
  kubeconfigDir?: string;
  /** The kubeconfig to reach the cluster with. */
  kubeconfig?: string;
  /** A preflight phase's report format (`text`, `json`). */
  output?: string;
  /**
   * init, control-plane join: install the certificate auto-renewal schedule at the end (beyond
   * upstream, `core/certs/auto_renewal.ts`).
   */
  certificateAutoRenewal?: boolean;
  /** init: print the addons' objects instead of installing them. */
  printManifest?: boolean;
  /** join: the API server endpoint of token discovery. */
  apiServerEndpoint?: string;
  /** join: `controlPlane` (host a control-plane instance). */
  controlPlane?: boolean;
  /** join: `discovery.file.kubeConfigPath` (a path or an https URL). */
  discoveryFile?: string;
  /** join: `discovery.bootstrapToken.token`. */
  discoveryToken?: string;
  /** join: `discovery.bootstrapToken.caCertHashes`. */
  caCertHashes?: string[];
  /** join: `discovery.bootstrapToken.unsafeSkipCAVerification`. */
  unsafeSkipCAVerification?: boolean;
  /** join: `discovery.tlsBootstrapToken`. */
  tlsBootstrapToken?: string;
  /** reset: no confirmation prompt; upgrade apply: `forceUpgrade`. */
  force?: boolean;
  /** reset: `cleanupTmpDir`. */
  cleanupTmpDir?: boolean;
  /** upgrade: `allowExperimentalUpgrades`. */
  allowExperimentalUpgrades?: boolean;
  /** upgrade: `allowRCUpgrades`. */
  allowRCUpgrades?: boolean;
  /** upgrade: `certificateRenewal`. */
  certificateRenewal?: boolean;
  /** upgrade: `etcdUpgrade`. */
  etcdUpgrade?: boolean;
  /** upgrade: `printConfig`. */
  printConfig?: boolean;
  /** upgrade apply: do not ask for confirmation. */
  yes?: boolean;
}

/** An input's name. */
export type InputName = keyof Inputs;
