import { killedUpgradeSuite } from './killed-upgrade-suite.js';

killedUpgradeSuite('postgres');
