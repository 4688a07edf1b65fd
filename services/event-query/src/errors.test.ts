import { AppError } from '@stratum/http-kit';
import * as errors from './errors';

describe("group A's error catalogue", () => {
  it("keeps Panko's and Ceilometer's wire texts", () => {
    expect(errors.unknownArgument('x').message).toBe('Unknown argument: "x"');
    expect(errors.limitNotInteger('a').message).toBe("Invalid input for field/attribute limit. Value: 'a'. unable to convert to int");
    expect(errors.limitNotPositive('0').message).toBe(
      "Invalid input for field/attribute limit. Value: '0'. the limit should be a positive integer.",
    );
    expect(errors.limitTooLarge(51, 50).message).toBe("Invalid input for field/attribute limit. Value: '51'. the limit may not exceed 50.");
    expect(errors.notBoolean('all_tenants').message).toBe('Invalid input for field/attribute all_tenants. Expected a boolean.');
    expect(errors.notBoolean('all_tenants', 'x').message).toBe(
      "Invalid input for field/attribute all_tenants. Value: 'x'. Expected a boolean.",
    );
    expect(errors.operatorOnly('gt', 'ge', 'start_timestamp').message).toBe(
      "Operator gt is not supported. Only `ge' operator is available for field start_timestamp",
    );
    expect(errors.invalidSortDirection('a:b').message).toMatch(/the supported sort directions are: \('asc', 'desc'\)$/);
    expect(errors.filterNotValid('why').message).toBe('Filter expression not valid: why');
    expect(errors.orderByNotValid('why').message).toBe('Order-by expression not valid: why');
    expect(errors.nothingStored(['records[0]: a', 'records[2]: b']).message).toBe('Nothing was stored. records[0]: a; records[2]: b');
  });

  it.each([
    [errors.eventNotFound('m'), 404],
    [errors.eventTypeNotFound('t'), 404],
    [errors.rbacFailed(), 403],
    [errors.projectNotAuthorized('p'), 403],
    [errors.markerNotFound('m'), 400],
    [errors.queryTimedOut(10), 503],
    [errors.ingestBodyMissing(), 400],
  ])('%s has its status', (error, status) => {
    expect(error).toBeInstanceOf(AppError);
    expect(error.status).toBe(status);
  });

  it("the invalid-request mapping answers the first issue's message as a 400", () => {
    const error = errors.invalidRequest({
      part: 'query',
      issues: [
        { code: 'custom', message: 'first', path: ['a'], input: 1 },
        { code: 'custom', message: 'second', path: ['b'], input: 2 },
      ],
    });
    expect({ status: error.status, message: error.message }).toEqual({ status: 400, message: 'first' });
  });
});
