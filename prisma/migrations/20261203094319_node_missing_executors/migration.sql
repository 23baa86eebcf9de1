-- AlterTable
ALTER TABLE "Node" ADD COLUMN     "missingExecutors" "Executor"[] DEFAULT ARRAY[]::"Executor"[];

