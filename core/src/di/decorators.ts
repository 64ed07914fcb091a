// tsyringe needs the Reflect metadata API before it loads; importing it through here guarantees that order.
import 'reflect-metadata';

export { inject, injectable } from 'tsyringe';
