import { describe, expect, it } from 'vitest';
import { isReadable, matches } from '../../src/query/match.ts';
import { parseWhere } from '../../src/query/parse-query.ts';

const date = (iso: string): Record<string, string> => ({ __type: 'Date', iso });

const object = {
  objectId: 'o1',
  createdAt: '2025-01-02T00:00:00.000Z',
  updatedAt: '2025-01-03T00:00:00.000Z',
  name: 'Ann',
  score: 5,
  ratio: 0.5,
  verified: false,
  nick: null,
  channels: ['news', 'sport'],
  matrix: [[1, 2], [3]],
  authData: { weibo: { uid: 'w1' } },
  born: date('1990-05-01T00:00:00.000Z'),
  owner: { __type: 'Pointer', className: '_User', objectId: 'u1' },
  place: { __type: 'GeoPoint', latitude: 1.5, longitude: 2 },
  items: [{ a: 1, b: 2 }],
};

describe('matches', () => {
  it.each<[string, Record<string, unknown>, boolean]>([
    ['equality on a string', { name: 'Ann' }, true],
    ['equality is case-sensitive', { name: 'ann' }, false],
    ['equality on a boolean', { verified: false }, true],
    ['a number never equals its string', { score: '5' }, false],
    ['array contains', { channels: 'sport' }, true],
    ['array does not contain', { channels: 'tech' }, false],
    ['array equality, order-sensitive', { channels: ['news', 'sport'] }, true],
    ['array equality in another order', { channels: ['sport', 'news'] }, false],
    ['an array element that is an array', { matrix: [3] }, true],
    ['object equality ignores key order', { items: { b: 2, a: 1 } }, true],
    ['a nested path', { 'authData.weibo.uid': 'w1' }, true],
    ['a nested path through a missing key', { 'authData.qq.uid': 'w1' }, false],
    ['a path into a prototype property', { 'authData.constructor': { $exists: true } }, false],
    ['null equals null', { nick: null }, true],
    ['null equals a missing field', { absent: null }, true],
    ['$ne on a present value', { name: { $ne: 'Bob' } }, true],
    ['$ne on the same value', { name: { $ne: 'Ann' } }, false],
    ['$ne on a missing field', { absent: { $ne: 1 } }, true],
    ['$ne on an array that contains the value', { channels: { $ne: 'news' } }, false],
    ['$lt number', { score: { $lt: 6 } }, true],
    ['$lt number, equal', { score: { $lt: 5 } }, false],
    ['$lte number, equal', { score: { $lte: 5 } }, true],
    ['$gt fraction', { ratio: { $gt: 0.25 } }, true],
    ['$gte number', { score: { $gte: 6 } }, false],
    ['$gte number, equal', { score: { $gte: 5 } }, true],
    ['$lte number, greater', { score: { $lte: 4 } }, false],
    ['$gt number, equal', { score: { $gt: 5 } }, false],
    ['$lte never compares a string with a number', { name: { $lte: 100 } }, false],
    ['$gt never compares a number with a string', { score: { $gt: '1' } }, false],
    ['$lt never compares a string with a number', { name: { $lt: 100 } }, false],
    ['$lt on a missing field', { absent: { $lt: 100 } }, false],
    ['$gt string, by code unit', { name: { $gt: 'Alice' } }, true],
    ['$gt on an array compares its elements', { channels: { $gt: 'p' } }, true],
    ['$lt date', { born: { $lt: date('2000-01-01T00:00:00.000Z') } }, true],
    ['$gt date', { born: { $gt: date('2000-01-01T00:00:00.000Z') } }, false],
    ['a date is not compared with a string', { born: { $lt: '2000-01-01T00:00:00.000Z' } }, false],
    ['date equality by time, not by text', { born: date('1990-05-01T00:00:00Z') }, true],
    ['createdAt compared with a Date', { createdAt: { $gt: date('2025-01-01T00:00:00.000Z') } }, true],
    ['createdAt compared with an ISO string', { createdAt: { $lt: '2025-01-01T12:00:00.000Z' } }, false],
    ['updatedAt equality with a Date', { updatedAt: date('2025-01-03T00:00:00.000Z') }, true],
    ['$in', { score: { $in: [1, 5] } }, true],
    ['$in without the value', { score: { $in: [1, 2] } }, false],
    ['$in on an array field', { channels: { $in: ['tech', 'news'] } }, true],
    ['$in with null matches missing', { absent: { $in: [null] } }, true],
    ['$nin', { score: { $nin: [1, 2] } }, true],
    ['$nin with the value', { channels: { $nin: ['news'] } }, false],
    ['$nin on a missing field', { absent: { $nin: [1] } }, true],
    ['$nin with several values, one of them stored', { score: { $nin: [1, 5, 7] } }, false],
    ['$all', { channels: { $all: ['sport', 'news'] } }, true],
    ['$all with one missing', { channels: { $all: ['sport', 'tech'] } }, false],
    ['$all on a non-array', { name: { $all: ['Ann'] } }, false],
    ['$all with no values', { channels: { $all: [] } }, false],
    ['$all with objects by value', { items: { $all: [{ b: 2, a: 1 }] } }, true],
    ['$exists true', { name: { $exists: true } }, true],
    ['$exists true on null', { nick: { $exists: true } }, true],
    ['$exists false on a missing field', { absent: { $exists: false } }, true],
    ['$exists false on a present field', { name: { $exists: false } }, false],
    ['$regex', { name: { $regex: '^A' } }, true],
    ['$regex is case-sensitive', { name: { $regex: '^a' } }, false],
    ['$regex with i', { name: { $regex: '^a', $options: 'i' } }, true],
    ['$regex on array elements', { channels: { $regex: 'spo' } }, true],
    ['$regex never matches a number', { score: { $regex: '5' } }, false],
    ['$regex on createdAt reads its text', { createdAt: { $regex: '^2025-01-02' } }, true],
    ['Pointer equality by objectId', { owner: { __type: 'Pointer', className: '_User', objectId: 'u1' } }, true],
    ['Pointer equality without className', { owner: { __type: 'Pointer', objectId: 'u1' } }, true],
    ['Pointer to another object', { owner: { __type: 'Pointer', className: '_User', objectId: 'u2' } }, false],
    ['GeoPoint equality', { place: { __type: 'GeoPoint', latitude: 1.5, longitude: 2 } }, true],
    ['GeoPoint elsewhere', { place: { __type: 'GeoPoint', latitude: 1.5, longitude: 3 } }, false],
    ['several predicates, all met', { score: { $gt: 1, $lt: 10 } }, true],
    ['several predicates, one not met', { score: { $gt: 1, $lt: 3 } }, false],
    ['several fields, all met', { name: 'Ann', score: 5 }, true],
    ['several fields, one not met', { name: 'Ann', score: 6 }, false],
    ['$or with one branch met', { $or: [{ name: 'Bob' }, { score: 5 }] }, true],
    ['$or with no branch met', { $or: [{ name: 'Bob' }, { score: 6 }] }, false],
    ['$and with both met', { $and: [{ channels: 'news' }, { channels: 'sport' }] }, true],
    ['$and with one not met', { $and: [{ channels: 'news' }, { channels: 'tech' }] }, false],
    ['$or inside $and', { $and: [{ $or: [{ score: 1 }, { score: 5 }] }, { name: 'Ann' }] }, true],
  ])('%s → %s', (_title, where, expected) => {
    expect(matches(parseWhere(where), object)).toBe(expected);
  });

  it('matches everything without a condition', () => {
    expect(matches(null, {})).toBe(true);
  });
});

describe('isReadable', () => {
  it.each<[string, unknown, string[] | null, boolean]>([
    ['anything for the master key', { u1: { write: true } }, null, true],
    ['an object without ACL', undefined, ['*'], true],
    ['an object with a null ACL', null, ['*'], true],
    ['public read', { '*': { read: true } }, ['*'], true],
    ['public write only', { '*': { write: true } }, ['*', 'u1'], false],
    ['the user itself', { u1: { read: true, write: true } }, ['*', 'u1'], true],
    ['another user', { u1: { read: true } }, ['*', 'u2'], false],
    ['read not exactly true', { '*': { read: 'yes' } }, ['*'], false],
    ['an empty ACL', {}, ['*'], false],
    ['a malformed ACL', 'public', ['*'], false],
    ['an ACL that is an array', [{ read: true }], ['0'], false],
    ['a principal named like a prototype key', {}, ['constructor', '__proto__'], false],
  ])('%s → %s', (_title, acl, readableBy, expected) => {
    const object = acl === undefined ? { objectId: 'o' } : { objectId: 'o', ACL: acl };
    expect(isReadable(object, readableBy)).toBe(expected);
  });
});
