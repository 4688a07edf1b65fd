export {
  type Credentials,
  checkSampleFile,
  credentialsOf,
  type Operation,
  Policy,
  PolicyError,
  policySample,
  type RuleDefault,
  readPolicyFile,
  type Target,
} from './enforcer';
export { type Check, CheckSyntaxError, MAX_CHECK_LENGTH, MAX_DEPTH, parseCheckString, referencedRules } from './parser';
